from .. import _C
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key in ("amsgrad", "maximize", "capturable", "differentiable", "decoupled_weight_decay"):
                group.setdefault(key, False)
        for s in self.state.values():  # old checkpoints hold the step as a float
            if "step" in s and not isinstance(s["step"], _C.Tensor):
                s["step"] = _C.tensor(float(s["step"]), dtype=_C.float32)

    def _step_group(self, group, params, grads):
        amsgrad = group["amsgrad"]
        for p in params:
            state = self.state[p]
            if len(state) == 0:  # lazy state, as torch: a float32 step counter, zeros like the parameter
                state["step"] = _C.tensor(0.0, dtype=_C.float32)
                state["exp_avg"] = _C.zeros_like(p)
                state["exp_avg_sq"] = _C.zeros_like(p)
                if amsgrad:
                    state["max_exp_avg_sq"] = _C.zeros_like(p)
        states = [self.state[p] for p in params]
        beta1, beta2 = group["betas"]
        _C._optim._adam(params, grads, [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states],
                        [s["max_exp_avg_sq"] for s in states] if amsgrad else [], [s["step"] for s in states],
                        group["lr"], beta1, beta2, group["eps"], group["weight_decay"], amsgrad, group["maximize"],
                        group["decoupled_weight_decay"])


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True

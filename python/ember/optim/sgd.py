from .. import _C
from .optimizer import Optimizer, required

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)

    def _step_group(self, group, params, grads):
        momentum = group["momentum"] != 0  # as torch: state entries only with momentum
        bufs = [self.state[p].get("momentum_buffer") if momentum else None for p in params]
        bufs = _C._optim._sgd(params, grads, bufs, group["lr"], group["momentum"], group["dampening"],
                              group["weight_decay"], group["nesterov"], group["maximize"])
        if momentum:
            for p, buf in zip(params, bufs):
                self.state[p]["momentum_buffer"] = buf

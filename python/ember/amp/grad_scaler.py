"""ember.amp.GradScaler (torch.amp.GradScaler): loss scaling for float16 training. The inf check, the unscale
and the scale update are C++ ops (ember/amp.h) on the scale's device; only step() reads found_inf on the host."""
import warnings
from collections import defaultdict
from enum import Enum

from .. import _C


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                              stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        self._scale = _C.full((), self._init_scale, dtype=_C.float32, device=dev)
        self._growth_tracker = _C.full((), self._init_growth_tracker, dtype=_C.int32, device=dev)

    def scale(self, outputs):
        """outputs (a tensor or an iterable of tensors) times the scale; unchanged when disabled."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, _C.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)
        per_device = {}

        def apply(val):
            if isinstance(val, _C.Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                if val.device not in per_device:
                    per_device[val.device] = self._scale.to(device=val.device, non_blocking=True)
                return val * per_device[val.device]
            if isinstance(val, (list, tuple)):
                scaled = map(apply, val)
                return type(val)(scaled) if isinstance(val, list) else tuple(scaled)
            if hasattr(val, "__iter__"):
                return map(apply, val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        """Unscales the optimizer's grads per device and dtype; returns found_inf per device."""
        grouped = defaultdict(lambda: defaultdict(list))
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if not allow_fp16 and param.grad.dtype == _C.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                grouped[param.grad.device][param.grad.dtype].append(param.grad)
        found = {}
        for device, per_dtype in grouped.items():
            found[device] = found_inf if device == found_inf.device else found_inf.to(device)
            dev_inv_scale = inv_scale if device == inv_scale.device else inv_scale.to(device)
            for grads in per_dtype.values():
                _C._amp_foreach_non_finite_check_and_unscale_(grads, found[device], dev_inv_scale)
        return found

    def unscale_(self, optimizer):
        """Divides the optimizer's grads by the scale, in place (once per optimizer between updates)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _C.full((), 0.0, dtype=_C.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscales (unless unscale_ ran) and steps the optimizer, skipping the step when a grad is inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Backs the scale off after a skipped step, grows it after growth_interval clean ones (or sets new_scale)."""
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if new_scale.device.type != self._device or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [f.to(device=scale.device, non_blocking=True) for state in self._per_optimizer_states.values()
                          for f in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            combined = found_infs[0]
            for f in found_infs[1:]:
                combined += f
            _C._amp_update_scale_(scale, growth_tracker, combined, self._growth_factor, self._backoff_factor,
                                  self._growth_interval)
        self._per_optimizer_states = defaultdict(_fresh_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                     "of an iteration, or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)


def _deprecated_cuda_alias():
    class GradScaler_(GradScaler):
        def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                     enabled=True):
            warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                          "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
            super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)

    GradScaler_.__name__ = GradScaler_.__qualname__ = "GradScaler"
    return GradScaler_

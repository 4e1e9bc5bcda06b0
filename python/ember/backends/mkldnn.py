"""ember.backends.mkldnn: Ember's oneDNN (mkldnn) CPU backend, as torch.backends.mkldnn. `fuse_eval` (Ember's own,
default True) lets nn.Sequential run Conv2d -> BatchNorm2d (eval) -> ReLU and MaxPool2d runs as one oneDNN chain
when no gradient is needed; its results equal the unfused ones within float rounding. Set it False for the
module-by-module results bit for bit."""
import sys as _sys
import types as _types

from .. import _C


def is_available():
    """Ember always carries oneDNN."""
    return True


class _MkldnnModule(_types.ModuleType):
    def __getattr__(self, name):
        if name == "fuse_eval":
            return _C._nn._eval_fusion_enabled()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name == "fuse_eval":
            if not isinstance(value, bool):
                raise TypeError(f"fuse_eval expects a bool, but got {type(value).__name__}")
            return _C._nn._set_eval_fusion(value)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _MkldnnModule

"""ember.backends.mkldnn: Ember's oneDNN (mkldnn) CPU backend, as torch.backends.mkldnn. Ember's own switches, both
default True: `fuse_eval` lets nn.Sequential run Conv2d -> BatchNorm2d (eval) -> ReLU and MaxPool2d runs as one
oneDNN chain when no gradient is needed; `fuse_train` runs Conv2d -> BatchNorm2d (training) -> ReLU [-> 2x2
MaxPool2d] runs as one chain in oneDNN's blocked layout, recorded as one autograd node, when gradients are recorded;
`winograd` lets those chains run 3x3 convolutions as Winograd F(2x2, 3x3) where it measured faster.
Their results equal the unfused ones within float rounding. Set them False for the module-by-module results bit for
bit."""
import sys as _sys
import types as _types

from .. import _C

_SWITCHES = {"fuse_eval": ("_eval_fusion_enabled", "_set_eval_fusion"),
             "fuse_train": ("_train_fusion_enabled", "_set_train_fusion"),
             "winograd": ("_winograd_enabled", "_set_winograd")}


def is_available():
    """Ember always carries oneDNN."""
    return True


class _MkldnnModule(_types.ModuleType):
    def __getattr__(self, name):
        if name in _SWITCHES:
            return getattr(_C._nn, _SWITCHES[name][0])()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name in _SWITCHES:
            if not isinstance(value, bool):
                raise TypeError(f"{name} expects a bool, but got {type(value).__name__}")
            return getattr(_C._nn, _SWITCHES[name][1])(value)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _MkldnnModule

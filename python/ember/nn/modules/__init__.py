"""ember.nn's module classes: the C++ classes of ember._C._nn._modules, with Module's Python half."""
from ... import _C
from .module import Module, RemovableHandle, _IncompatibleKeys  # noqa: F401

_m = _C._nn._modules
Linear, Bilinear, Identity, Flatten, Unflatten = _m.Linear, _m.Bilinear, _m.Identity, _m.Flatten, _m.Unflatten
Sequential, ModuleList, ModuleDict = _m.Sequential, _m.ModuleList, _m.ModuleDict
ParameterList, ParameterDict = _m.ParameterList, _m.ParameterDict
for _cls in (Linear, Bilinear, Identity, Flatten, Unflatten, Sequential, ModuleList, ModuleDict, ParameterList,
             ParameterDict):
    _cls.__module__ = "ember.nn"
del _m, _cls

__all__ = ["Module", "Linear", "Bilinear", "Identity", "Flatten", "Unflatten", "Sequential", "ModuleList",
           "ModuleDict", "ParameterList", "ParameterDict"]

from . import activation as _activation  # noqa: E402
from .activation import *  # noqa: E402,F401,F403
__all__ += _activation.__all__
from . import loss as _loss  # noqa: E402
from .loss import *  # noqa: E402,F401,F403
__all__ += _loss.__all__
from . import transformer as _transformer  # noqa: E402
from .transformer import *  # noqa: E402,F401,F403
__all__ += _transformer.__all__

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

# Layers over the functional ops (python/src/nn_modules_layers.cpp).
_LAYERS = [
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d",
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    "Embedding", "EmbeddingBag", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
    "PixelShuffle", "PixelUnshuffle", "ChannelShuffle",
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
    "Fold", "Unfold", "CosineSimilarity", "PairwiseDistance",
]
for _name in _LAYERS:
    globals()[_name] = getattr(_C._nn._modules, _name)
    globals()[_name].__module__ = "ember.nn"
__all__ += _LAYERS
del _name
from . import activation as _activation  # noqa: E402
from .activation import *  # noqa: E402,F401,F403
__all__ += _activation.__all__
from . import loss as _loss  # noqa: E402
from .loss import *  # noqa: E402,F401,F403
__all__ += _loss.__all__
from . import transformer as _transformer  # noqa: E402
from .transformer import *  # noqa: E402,F401,F403
__all__ += _transformer.__all__

"""ember.nn.functional (torch.nn.functional): the C++ functions of ember._C._nn, plus the Python glue
that only argument handling needs."""
from .._C import _nn

globals().update({k: v for k, v in vars(_nn).items() if not k.startswith("_")})
del _nn
from ._interpolate import interpolate  # noqa: E402,F401

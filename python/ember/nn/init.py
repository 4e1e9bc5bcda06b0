"""ember.nn.init (torch.nn.init): the C++ initialisers of ember._C._nn._init."""
from .._C._nn import _init

globals().update({k: v for k, v in vars(_init).items() if not k.startswith("__")})
del _init

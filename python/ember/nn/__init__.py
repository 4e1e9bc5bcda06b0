"""ember.nn (torch.nn): modules, functional forms and initialisation, implemented in C++."""
from . import functional
from .parameter import Parameter
from . import init, utils
from .modules import *  # noqa: F401,F403

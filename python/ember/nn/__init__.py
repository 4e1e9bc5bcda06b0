"""ember.nn (torch.nn): modules, functional forms and initialisation, implemented in C++."""
from . import functional
from . import init, utils
from .modules import *  # noqa: F401,F403

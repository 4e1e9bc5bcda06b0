"""ember.vision.transforms: torchvision.transforms (v1 names) on PIL images and tensors [..., C, H, W]."""
from . import functional  # noqa: F401
from .functional import InterpolationMode  # noqa: F401
from .transforms import *  # noqa: F401,F403
from .transforms import __all__  # noqa: F401

"""ember.vision: torchvision's datasets, transforms and image utilities for Ember (C++ kernels underneath)."""
from . import datasets, transforms, utils  # noqa: F401

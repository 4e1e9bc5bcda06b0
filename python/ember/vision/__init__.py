"""ember.vision: torchvision's datasets, transforms and image utilities for Ember (C++ kernels underneath)."""
from . import datasets, transforms  # noqa: F401

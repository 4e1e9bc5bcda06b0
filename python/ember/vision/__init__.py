"""ember.vision: torchvision's datasets, transforms and image utilities for Ember (C++ kernels underneath)."""
from . import transforms  # noqa: F401

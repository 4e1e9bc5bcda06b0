"""ember.cuda: device queries. This build has no CUDA backend yet, so no device is available."""
from . import _C


def is_available():
    return _C._cuda_is_available()


def device_count():
    return _C._cuda_device_count()


def _unavailable(*args, **kwargs):
    raise AssertionError("Ember was built without CUDA support (or no CUDA device is present)")


current_device = get_device_name = synchronize = set_device = _unavailable
memory_allocated = max_memory_allocated = memory_reserved = empty_cache = _unavailable

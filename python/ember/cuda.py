"""ember.cuda: device queries. This build has no CUDA backend yet, so it answers as torch's CPU build does:
memory statistics are 0, cache and seeding calls do nothing, and calls that need a device raise AssertionError."""
import collections

from . import _C


def is_available():
    return _C._cuda_is_available()


def device_count():
    return _C._cuda_device_count()


def is_initialized():
    return False


def _unavailable(*args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


def _zero(device=None):
    return 0


def _nothing(*args, **kwargs):
    return None


def memory_stats(device=None):
    return collections.OrderedDict()


def get_arch_list():
    return []


def is_bf16_supported(including_emulation=True):
    return False


current_device = get_device_name = get_device_capability = get_device_properties = _unavailable
synchronize = set_device = init = mem_get_info = get_rng_state = set_rng_state = _unavailable
current_stream = ipc_collect = reset_peak_memory_stats = _unavailable
memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _zero
memory_cached = max_memory_cached = _zero
empty_cache = manual_seed = manual_seed_all = seed = seed_all = _nothing

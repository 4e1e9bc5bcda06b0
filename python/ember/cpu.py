"""ember.cpu: the CPU device, with memory statistics like those torch.cuda offers for GPUs.

Large CPU blocks are cached after free so loops do not pay for first-touch page faults again;
empty_cache() returns the cache to the system.
"""
from . import _C


def is_available():
    return True


def device_count():
    return 1


def synchronize(device=None):
    """CPU work is synchronous; nothing to wait for."""


def memory_stats(device=None):
    return _C._cpu_memory_stats()


def memory_allocated(device=None):
    return memory_stats()["allocated_bytes.all.current"]


def max_memory_allocated(device=None):
    return memory_stats()["allocated_bytes.all.peak"]


def memory_reserved(device=None):
    return memory_stats()["reserved_bytes.all.current"]


def reset_peak_memory_stats(device=None):
    _C._cpu_reset_peak_memory_stats()


def empty_cache():
    _C._cpu_empty_cache()

"""ember.cuda: CUDA devices, their memory and synchronisation, as torch.cuda.

The backend (libember_cuda) loads on first use. Where this build or machine has no CUDA GPU,
is_available() is False, device_count() 0, memory statistics 0 and cache calls do nothing, and the
calls that need a device raise AssertionError naming why (as torch's CPU build does)."""
import collections

from . import _C
from ._C import OutOfMemoryError


def is_available():
    return _C._cuda_is_available()


def device_count():
    return _C._cuda_device_count()


def is_initialized():
    return is_available()


def init():
    _require()


def _require():
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled" if not _C._cuda_unavailable_reason()
                             else "CUDA is not available: " + _C._cuda_unavailable_reason())


def _index(device=None, optional=True):
    """A device index from None (the current device), an int, a string or an ember.device."""
    if device is None:
        return -1 if optional else current_device()
    if isinstance(device, int):
        return device
    device = _C.device(device) if isinstance(device, str) else device
    if device.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {device}")
    return -1 if device.index is None else device.index


def current_device():
    _require()
    return _C._cuda_current_device()


def set_device(device):
    index = _index(device)
    if index >= 0:
        _C._cuda_set_device(index)


class device:
    """Context manager that makes `device` current, restoring the previous device after."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = current_device()
            if self.prev_idx != self.idx:
                _C._cuda_set_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.idx >= 0 and self.prev_idx != self.idx:
            _C._cuda_set_device(self.prev_idx)
        return False


def synchronize(device=None):
    _require()
    _C._cuda_synchronize(_index(device))


_DeviceProperties = collections.namedtuple(
    "_CudaDeviceProperties", "name major minor multi_processor_count total_memory L2_cache_size")


def get_device_properties(device=None):
    _require()
    return _DeviceProperties(*_C._cuda_get_device_properties(_index(device)))


def get_device_name(device=None):
    return get_device_properties(device).name


def get_device_capability(device=None):
    p = get_device_properties(device)
    return (p.major, p.minor)


def get_arch_list():
    return ["sm_90"] if is_available() else []


def is_bf16_supported(including_emulation=True):
    return is_available() and get_device_capability()[0] >= 8


# ---- memory (the caching allocator's statistics; all 0 without a GPU, as torch's CPU build)

def memory_stats(device=None):
    if not is_available():
        return collections.OrderedDict()
    return collections.OrderedDict(sorted(_C._cuda_memory_stats(_index(device)).items()))


def _stat(key, device):
    return memory_stats(device).get(key, 0)


def memory_allocated(device=None):
    return _stat("allocated_bytes.all.current", device)


def max_memory_allocated(device=None):
    return _stat("allocated_bytes.all.peak", device)


def memory_reserved(device=None):
    return _stat("reserved_bytes.all.current", device)


def max_memory_reserved(device=None):
    return _stat("reserved_bytes.all.peak", device)


memory_cached, max_memory_cached = memory_reserved, max_memory_reserved


def reset_peak_memory_stats(device=None):
    _require()
    _C._cuda_reset_peak_memory_stats(_index(device))


def reset_max_memory_allocated(device=None):
    reset_peak_memory_stats(device)


def empty_cache():
    if is_available():
        _C._cuda_empty_cache()


def mem_get_info(device=None):
    _require()
    return tuple(_C._cuda_mem_get_info(_index(device)))


def set_per_process_memory_fraction(fraction, device=None):
    _require()
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    _C._cuda_set_per_process_memory_fraction(fraction, _index(device))


def memory_summary(device=None, abbreviated=False):
    """A table of the allocator's statistics, like torch.cuda.memory_summary."""
    stats = memory_stats(device)

    def size(n):
        for unit in ("B  ", "KiB", "MiB", "GiB"):
            if abs(n) < 1024 or unit == "GiB":
                return f"{n:7.0f} {unit}" if unit == "B  " else f"{n:7.2f} {unit}"
            n /= 1024

    rule = "|" + "=" * 75 + "|"
    rows = [rule, "|" + " Ember CUDA memory summary, device ID {}".format(_index(device, optional=False)
                                                                            if is_available() else 0).ljust(75) + "|",
            rule, "|        Metric         | Cur Usage  | Peak Usage |" + " " * 26 + "|", rule]
    for label, key in (("Allocated memory", "allocated_bytes"), ("Reserved memory", "reserved_bytes")):
        cur, peak = stats.get(key + ".all.current", 0), stats.get(key + ".all.peak", 0)
        rows.append(f"| {label:<21} | {size(cur)} | {size(peak)} |" + " " * 26 + "|")
    for label, key in (("Allocations", "allocation.all.current"), ("Segments", "segment.all.current"),
                       ("Alloc retries", "num_alloc_retries"), ("OOMs", "num_ooms")):
        rows.append(f"| {label:<21} | {stats.get(key, 0):>10} |" + " " * 39 + "|")
    rows.append(rule)
    return "\n".join(rows) + "\n"


# ---- random numbers: CUDA tensors draw on the GPU from the default generator's seed (Philox at a counter the
# generator keeps beside its CPU stream), so one seed fixes both

def manual_seed(seed):
    _C.manual_seed(seed)


manual_seed_all = manual_seed


def seed():
    return _C.seed()


seed_all = seed


def ipc_collect():
    pass


def get_rng_state(device="cuda"):
    _require()
    return _C.get_rng_state()


def set_rng_state(new_state, device="cuda"):
    _require()
    _C.set_rng_state(new_state)


# ---- streams and events

class Stream:
    """A CUDA stream: work queued on it runs in order, concurrently with other streams. New streams come from a
    per-device pool (as torch's); Stream(stream_ptr=0) style wrapping of foreign streams is not supported."""

    def __new__(cls, device=None, priority=0, _stream=None):
        self = super().__new__(cls)
        if _stream is None:
            _require()
            _stream = _C._cuda_stream_from_pool(priority < 0, _index(device))
        self._stream = _stream
        return self

    @property
    def device(self):
        return _C.device("cuda", self._stream.device)

    @property
    def cuda_stream(self):
        return self._stream.handle

    def synchronize(self):
        self._stream.synchronize()

    def query(self):
        return self._stream.query()

    def wait_event(self, event):
        event.wait(self)

    def wait_stream(self, stream):
        """Work queued on this stream from now on waits for the work queued on `stream` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.cuda_stream, self._stream.device) == (
            other.cuda_stream, other._stream.device)

    def __hash__(self):
        return hash((self.cuda_stream, self._stream.device))

    def __repr__(self):
        return f"<ember.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class Event:
    """A point in a stream's work, to wait for or to time (enable_timing=True)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if interprocess:
            raise NotImplementedError("interprocess CUDA events are not supported by Ember")
        self.enable_timing, self.blocking = enable_timing, blocking
        self._event = None

    def _created(self, device):
        if self._event is None:
            self._event = _C._CudaEvent(self.enable_timing, self.blocking, device)
        return self._event

    def record(self, stream=None):
        stream = current_stream() if stream is None else stream
        self._created(stream._stream.device).record(stream._stream)

    def wait(self, stream=None):
        stream = current_stream() if stream is None else stream
        if self._event is not None:  # waiting for an unrecorded event waits for nothing, as in CUDA
            self._event.wait(stream._stream)

    def query(self):
        return self._event is None or self._event.query()

    def synchronize(self):
        if self._event is not None:
            self._event.synchronize()

    def elapsed_time(self, end_event):
        if self._event is None or end_event._event is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return self._event.elapsed_time(end_event._event)

    @property
    def cuda_event(self):
        return 0 if self._event is None else self._event.handle


def current_stream(device=None):
    _require()
    return Stream(_stream=_C._cuda_current_stream(_index(device)))


def default_stream(device=None):
    _require()
    return Stream(_stream=_C._cuda_default_stream(_index(device)))


def set_stream(stream):
    if stream is not None:
        _C._cuda_set_current_stream(stream._stream)


class StreamContext:
    """Makes `stream` current on its device for the block (None: a no-op), restoring the previous stream after."""

    def __init__(self, stream):
        self.stream = stream
        self._previous = None

    def __enter__(self):
        if self.stream is not None:
            self._previous = current_stream(self.stream._stream.device)
            set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self._previous is not None:
            set_stream(self._previous)
        return False


def stream(stream):
    return StreamContext(stream)


def _record_stream(tensor, stream):
    if not tensor.is_cuda:
        raise RuntimeError(f"record_stream needs a CUDA tensor, got one on {tensor.device}")
    if not isinstance(stream, Stream):
        raise TypeError(f"record_stream(): argument 'stream' must be a Stream, not {type(stream).__name__}")
    _C._cuda_record_stream(tensor, stream._stream)


# ---- CUDA graphs (python/ember/_cuda_graphs.py)

from . import _cuda_graphs as graphs  # noqa: E402  (torch.cuda.graphs)
from ._cuda_graphs import (CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing,  # noqa: E402
                           make_graphed_callables)

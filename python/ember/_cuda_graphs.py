"""ember.cuda's CUDA graphs, as torch.cuda.graphs: CUDAGraph (ember::cuda::CUDAGraph), the `graph` context manager,
graph_pool_handle and is_current_stream_capturing. Without a CUDA device they raise what torch's CPU build raises."""
import gc

from . import _C
from . import cuda as _cuda

_CAPTURE_MODES = {"global": 0, "thread_local": 1, "relaxed": 2}


def _dummy(name):
    """torch's CPU-build error for the CUDA graph classes and functions."""
    if not _cuda.is_available():
        raise RuntimeError(f"Tried to instantiate dummy base class {name}")


def is_current_stream_capturing():
    """Whether the current stream of the current device is capturing a CUDA graph."""
    _dummy("_cuda_isCurrentStreamCapturing")
    return _C._cuda_is_current_stream_capturing()


def graph_pool_handle():
    """An opaque token for a memory pool graphs may share: pass it as `pool` to each capture."""
    _dummy("_graph_pool_handle")
    return _C._cuda_graph_pool_handle()


class CUDAGraph:
    """A CUDA graph: the work queued on the current stream between capture_begin and capture_end, replayed at once.

    keep_graph: keep the captured graph after capture_end, instantiating it at instantiate() or the first replay."""

    def __new__(cls, keep_graph=False):
        _dummy("CUDAGraph")
        self = super().__new__(cls)
        self._graph = _C._CUDAGraph(bool(keep_graph))
        return self

    def __init__(self, keep_graph=False):
        pass

    def capture_begin(self, pool=None, capture_error_mode="global"):
        """Begins capturing the current stream's work (which must not be the default stream)."""
        if capture_error_mode not in _CAPTURE_MODES:
            raise RuntimeError("Unknown capture error mode. Expected `global`, `thread_local`, or `relaxed`, got "
                               f"{capture_error_mode}")
        self._graph.capture_begin((0, 0) if pool is None else tuple(pool), _CAPTURE_MODES[capture_error_mode])

    def capture_end(self):
        self._graph.capture_end()

    def instantiate(self):
        self._graph.instantiate()

    def replay(self):
        """Launches the captured work on the current stream."""
        self._graph.replay()

    def reset(self):
        """Drops the graph; its pool's memory returns to the cache once no graph uses the pool."""
        self._graph.reset()

    def pool(self):
        """The token of this graph's memory pool, to share it with another capture."""
        return self._graph.pool()

    def enable_debug_mode(self):
        self._graph.enable_debug_mode()

    def debug_dump(self, debug_path):
        self._graph.debug_dump(str(debug_path))


class graph:
    """Captures the block's CUDA work into `cuda_graph`: synchronizes, collects garbage and empties the cache first
    (as torch), then captures on `stream` or, by default, on a side stream shared by all captures."""

    default_capture_stream = None

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        if not _cuda.is_available():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        if graph.default_capture_stream is None:
            graph.default_capture_stream = _cuda.Stream()
        self.pool = () if pool is None else (pool,)
        self.capture_stream = stream if stream is not None else graph.default_capture_stream
        self.stream_ctx = _cuda.stream(self.capture_stream)
        self.cuda_graph = cuda_graph
        self.capture_error_mode = capture_error_mode

    def __enter__(self):
        _cuda.synchronize()
        gc.collect()
        _cuda.empty_cache()
        self.stream_ctx.__enter__()
        try:
            self.cuda_graph.capture_begin(*self.pool, capture_error_mode=self.capture_error_mode)
        except BaseException:
            self.stream_ctx.__exit__(None, None, None)
            raise

    def __exit__(self, exc_type, exc, tb):
        try:
            self.cuda_graph.capture_end()
        except RuntimeError:
            if exc_type is None:  # else the block's own error, which broke the capture, is the one to see
                raise
        finally:
            self.stream_ctx.__exit__(exc_type, exc, tb)
        return False

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


def _no_liveness(check_input_liveness):
    if check_input_liveness:
        raise NotImplementedError("check_input_liveness=True is not supported by Ember's CUDA graphs")


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

    def capture_begin(self, pool=None, capture_error_mode="global", check_input_liveness=False):
        """Begins capturing the current stream's work (which must not be the default stream)."""
        _no_liveness(check_input_liveness)
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
    (as torch), then captures on `stream` or, by default, on a side stream shared by all captures. enable_annotations
    (profiler annotations) has no effect here."""

    default_capture_stream = None

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global", enable_annotations=False,
                 check_input_liveness=False):
        _no_liveness(check_input_liveness)
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


def _flat(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _check_callable(fn, args):
    """torch's checks of one callable and its sample arguments (AssertionErrors, in torch's order)."""
    from .nn import Module
    if isinstance(fn, Module):
        if fn._hooks and any(len(h) for h in fn._hooks.values()):
            raise AssertionError("Modules must not have hooks registered at the time they are passed. However, "
                                 "registering hooks on modules after passing them through make_graphed_callables "
                                 "is allowed.")
        if any(b.requires_grad for b in fn.buffers()):
            raise AssertionError("In any :class:`~torch.nn.Module` passed to :func:`~make_graphed_callables`, only "
                                 "parameters may be trainable. All buffers must have ``requires_grad=False``.")
    if not all(isinstance(a, _C.Tensor) for a in args):
        raise AssertionError("In the beta API, sample_args for each callable must contain only Tensors. Other types "
                             "are not allowed.")


class _Captured:
    """One callable's graphs: its forward and backward, the tensors they read (the user's arguments, then a
    module's parameters) and write (outputs, gradients of the differentiable inputs)."""

    def __init__(self, fn, args):
        from .nn import Module
        self.fn, self.n_user = fn, len(args)
        self.inputs = tuple(args) + (tuple(fn.parameters()) if isinstance(fn, Module) else ())
        self.fwd, self.bwd = CUDAGraph(), CUDAGraph()

    def run_forward_backward(self, allow_unused):
        """One eager forward and backward (a warm-up), through ember.autograd.grad so no .grad is touched."""
        from . import autograd, empty_like
        outs = [o for o in _flat(self.fn(*self.inputs[:self.n_user])) if o.requires_grad]
        wrt = [t for t in self.inputs if t.requires_grad]
        if outs and wrt:
            autograd.grad(outs, wrt, grad_outputs=[empty_like(o) for o in outs], allow_unused=allow_unused)

    def capture_forward(self, pool):
        with graph(self.fwd, pool=pool):
            out = self.fn(*self.inputs[:self.n_user])
        self.single = not isinstance(out, (tuple, list))
        self.outputs = _flat(out)

    def capture_backward(self, pool, allow_unused):
        from . import autograd, empty_like
        self.grad_outputs = tuple(empty_like(o) if o.requires_grad else None for o in self.outputs)
        outs = [o for o in self.outputs if o.requires_grad]
        wrt = [t for t in self.inputs if t.requires_grad]
        with graph(self.bwd, pool=pool):
            grads = autograd.grad(outs, wrt, grad_outputs=[g for g in self.grad_outputs if g is not None],
                                  allow_unused=allow_unused) if outs and wrt else ()
        found = iter(grads)
        self.grad_inputs = tuple(next(found) if t.requires_grad else None for t in self.inputs)

    def function(self):
        """The graphed callable: an autograd Function whose forward and backward replay the graphs."""
        from .autograd import Function
        me = self

        class Graphed(Function):
            @staticmethod
            def forward(ctx, *inputs):
                for static, given in zip(me.inputs[:me.n_user], inputs):
                    if static.data_ptr() != given.data_ptr():
                        static.copy_(given)
                me.fwd.replay()
                return tuple(o.detach() for o in me.outputs)

            @staticmethod
            def backward(ctx, *grads):
                for static, given in zip(me.grad_outputs, grads):
                    if static is not None and given is not None and static.data_ptr() != given.data_ptr():
                        static.copy_(given)
                me.bwd.replay()
                return tuple(g.detach() if g is not None else None for g in me.grad_inputs)

        def graphed(*user_args):
            out = _flat(Graphed.apply(*(tuple(user_args) + me.inputs[me.n_user:])))
            return out[0] if me.single else tuple(out)

        return graphed


def make_graphed_callables(callables, sample_args, num_warmup_iters=3, allow_unused_input=False, pool=None):
    """Graphed versions of callables (functions or Modules, torch.cuda.make_graphed_callables): each call copies its
    arguments into the sample arguments' tensors and replays a graph of the forward inside one autograd node, whose
    backward replays a graph of the backward. A module's forward is replaced, and runs graphed while its training
    flag is the one it had here. Several callables (a tuple) share one memory pool and must run in their order."""
    from .nn import Module
    just_one = not isinstance(callables, tuple)
    if just_one:
        callables, sample_args = (callables,), (sample_args,)
    callables, sample_args = list(callables), list(sample_args)
    for i, fn in enumerate(callables):
        _check_callable(fn, sample_args[i])
    captured = [_Captured(fn, sample_args[i]) for i, fn in enumerate(callables)]
    pool = graph_pool_handle() if pool is None else pool
    _cuda.synchronize()
    side = _cuda.Stream()
    side.wait_stream(_cuda.current_stream())
    with _cuda.stream(side):
        for c in captured:
            for _ in range(num_warmup_iters):
                c.run_forward_backward(allow_unused_input)
    _cuda.synchronize()
    for c in captured:  # forwards in order, backwards in reverse: the order they run in, so they may share memory
        c.capture_forward(pool)
    for c in reversed(captured):
        c.capture_backward(pool, allow_unused_input)
    result = []
    for fn, c in zip(callables, captured):
        graphed = c.function()
        if isinstance(fn, Module):
            def forward(*args, _fn=fn, _graphed=graphed, _eager=fn.forward, _training=fn.training):
                return _graphed(*args) if _fn.training == _training else _eager(*args)
            fn.forward = forward
            graphed = fn
        result.append(graphed)
    return result[0] if just_one else tuple(result)

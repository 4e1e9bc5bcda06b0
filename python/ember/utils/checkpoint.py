"""Gradient checkpointing: keep only a segment's inputs in the forward pass and recompute the
segment during backward, trading compute for activation memory (torch.utils.checkpoint)."""
from .. import _C
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad


class _Checkpoint(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng_state = _C.get_rng_state() if preserve_rng_state else None
        ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        ctx.args = [None if isinstance(a, _C.Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_positions])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        from .. import autograd
        args = list(ctx.args)
        for i, t in zip(ctx.tensor_positions, ctx.saved_tensors):
            args[i] = t.detach().requires_grad_(t.requires_grad)
        if ctx.rng_state is not None:
            current = _C.get_rng_state()
            _C.set_rng_state(ctx.rng_state)
        try:
            with enable_grad():
                outputs = ctx.run_function(*args)
        finally:
            if ctx.rng_state is not None:
                _C.set_rng_state(current)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, _C.Tensor) and o.requires_grad]
        if pairs:
            autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, _C.Tensor) else None for a in args)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    """Runs function(*args) without storing its intermediate activations; backward recomputes them."""
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    return _Checkpoint.apply(function, preserve_rng_state, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Splits a sequence of modules/functions into `segments` checkpointed chunks."""
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = (len(functions) + segments - 1) // segments

    def run(start, end):
        def segment(x):
            for f in functions[start:end]:
                x = f(x)
            return x
        return segment
    for start in range(0, len(functions), size):
        end = min(start + size, len(functions))
        input = run(start, end)(input) if end == len(functions) else checkpoint(run(start, end), input)
    return input

"""ember.autograd.Function: differentiable operations written in Python (torch.autograd.Function).

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y
"""
from .. import _C


class FunctionCtx:
    """The `ctx` of forward and backward: save tensors, read them back, and keep any attribute."""

    def save_for_backward(self, *tensors):
        self._cpp.save_for_backward(tensors)

    @property
    def saved_tensors(self):
        return self._cpp.saved_tensors

    def mark_non_differentiable(self, *tensors):
        self._cpp.mark_non_differentiable(tensors)

    def mark_dirty(self, *tensors):
        raise NotImplementedError("mark_dirty (in-place custom functions) is not supported by Ember yet")

    def set_materialize_grads(self, value):
        self._cpp.set_materialize_grads(bool(value))


class Function:
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads); call Subclass.apply(*args).
    backward returns one gradient per forward argument (None for non-tensors or no gradient)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        positions = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        single = []

        def forward(cpp_ctx):
            ctx._cpp = cpp_ctx
            out = cls.forward(ctx, *args, **kwargs)
            single.append(not isinstance(out, tuple))
            return (out,) if single[0] else out

        def backward(cpp_ctx, grads):
            result = cls.backward(ctx, *grads)
            result = result if isinstance(result, tuple) else (result,)
            if len(result) != len(args):
                raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of gradients "
                                   f"(expected {len(args)}, got {len(result)})")
            return [result[i] for i in positions]

        outputs = _C._run_function(cls.__name__ + "Backward", [args[i] for i in positions], forward, backward)
        return outputs[0] if single[0] else outputs


def once_differentiable(fn):
    """Marks a backward that is not itself differentiable (accepted for compatibility)."""
    return fn

"""ember.autograd: gradients of tensors w.r.t. graph leaves (torch.autograd)."""
from .. import _C
from .grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode
from .gradcheck import gradcheck, gradgradcheck
from .function import Function, FunctionCtx, once_differentiable
from . import function


def _tensors(x):
    if x is None:
        return None
    if isinstance(x, _C.Tensor):
        return (x,)
    return tuple(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of `tensors` into the .grad of the leaves they depend on."""
    _C._backward(_tensors(tensors), _tensors(grad_tensors), retain_graph, create_graph, _tensors(inputs))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Returns the gradients of `outputs` w.r.t. `inputs` (a tuple, one per input) without touching .grad."""
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported")
    result = _C._grad(_tensors(outputs), _tensors(inputs), _tensors(grad_outputs), retain_graph, create_graph,
                      bool(allow_unused) or materialize_grads)
    if materialize_grads:
        from .. import zeros_like
        inputs_t = _tensors(inputs)
        result = tuple(zeros_like(i) if r is None else r for r, i in zip(result, inputs_t))
    return result


__all__ = ["Function", "FunctionCtx", "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "gradcheck",
           "gradgradcheck"]

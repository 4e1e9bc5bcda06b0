"""gradcheck / gradgradcheck: analytical gradients against central finite differences."""
import itertools

from .. import _C


class GradcheckError(RuntimeError):
    """Raised when an analytical gradient differs from the numerical one."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable(xs):
    return [x for x in xs if isinstance(x, _C.Tensor) and x.requires_grad]


def _flat_indices(t):
    return list(itertools.product(*[range(s) for s in t.shape]))


def _numerical_jacobian(func, inputs, output_index, wrt, eps):
    """d output / d wrt, one column per element of `wrt`, by central differences (entries as floats)."""
    from .grad_mode import no_grad
    columns = []
    for idx in _flat_indices(wrt):
        with no_grad():  # the perturbation itself is not part of any graph
            element = wrt[idx] if idx else wrt
            original = element.item()
            element.fill_(original + eps)
        plus = _as_tuple(func(*inputs))[output_index].detach().clone()
        with no_grad():
            element.fill_(original - eps)
        minus = _as_tuple(func(*inputs))[output_index].detach().clone()
        with no_grad():
            element.fill_(original)
        columns.append(((plus - minus) / (2 * eps)).reshape(-1).tolist())
    return [list(row) for row in zip(*columns)] if columns else []


def _analytical_jacobian(output, wrt_list):
    """One Jacobian per input in `wrt_list`: rows are output elements, via one backward pass each."""
    from . import grad
    from .. import zeros_like
    jacobians = [[] for _ in wrt_list]
    for idx in _flat_indices(output):
        seed = zeros_like(output)
        (seed[idx] if idx else seed).fill_(1.0)
        grads = grad(output, wrt_list, seed, retain_graph=True, allow_unused=True)
        for j, (g, wrt) in enumerate(zip(grads, wrt_list)):
            jacobians[j].append([0.0] * wrt.numel() if g is None else g.reshape(-1).tolist())
    return jacobians


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """True when func's gradients w.r.t. every input that requires grad match finite differences
    (use float64 inputs); otherwise raises GradcheckError (or returns False)."""
    inputs = _as_tuple(inputs)
    wrt_list = _differentiable(inputs)
    if not wrt_list:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    outputs = _as_tuple(func(*inputs))
    # All analytical Jacobians first: the perturbations below change the inputs' versions.
    analytical = {o: _analytical_jacobian(out, wrt_list) for o, out in enumerate(outputs)
                  if isinstance(out, _C.Tensor) and out.requires_grad}
    for o_index, per_input in analytical.items():
        for i, wrt in enumerate(wrt_list):
            numerical = _numerical_jacobian(func, inputs, o_index, wrt, eps)
            for row_a, row_n in zip(per_input[i], numerical):
                for a, n in zip(row_a, row_n):
                    if abs(a - n) > atol + rtol * abs(n):
                        if not raise_exception:
                            return False
                        raise GradcheckError(
                            f"Jacobian mismatch for output {o_index} with respect to input {i},\n"
                            f"numerical:{numerical}\nanalytical:{per_input[i]}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the first derivatives (computed with create_graph=True) w.r.t. the inputs."""
    from . import grad
    from .. import randn_like
    inputs = _as_tuple(inputs)
    outputs = _as_tuple(func(*inputs))
    if grad_outputs is None:
        grad_outputs = tuple(randn_like(o).requires_grad_() for o in outputs if o.requires_grad)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def first_derivatives(*args):
        ins, gos = args[:n], args[n:]
        outs = [o for o in _as_tuple(func(*ins)) if o.requires_grad]
        wrt = _differentiable(ins)
        grads = grad(outs, wrt, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)

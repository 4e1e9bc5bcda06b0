"""torch.sparse: products and sums that keep sparse tensors sparse (the tensors themselves are in C++)."""
from . import _C

__all__ = ["mm", "addmm", "sum"]


def mm(mat1, mat2, reduce=None):
    """mat1 @ mat2 with mat1 sparse; mat1's gradient is sparse at its own coordinates."""
    if reduce is not None:
        raise NotImplementedError("torch.sparse.mm: reduce= is not supported")
    return _C._sparse_mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """beta * mat + alpha * (mat1 @ mat2) with mat1 sparse."""
    return _C._sparse_addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def sum(input, dim=None, dtype=None):
    """The sum over `dim` (all dims when None): sparse while sparse dims remain, else dense."""
    return _C._sparse_sum(input, dim, dtype)

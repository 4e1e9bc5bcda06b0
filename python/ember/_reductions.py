"""max/min: the whole-tensor value, (values, indices) along a dim, or with a tensor the elementwise maximum/minimum."""
from . import _C, return_types

__all__ = ["max", "min"]


def max(input, dim=None, keepdim=False):
    if isinstance(dim, _C.Tensor):  # torch's max(input, other): the elementwise maximum
        return _C.maximum(input, dim)
    if dim is None:
        return _C._max_all(input)
    if isinstance(dim, _C.Tensor):
        return _C.maximum(input, dim)
    return return_types.max(*_C._max_dim(input, dim, keepdim))


def min(input, dim=None, keepdim=False):
    if isinstance(dim, _C.Tensor):  # torch's min(input, other): the elementwise minimum
        return _C.minimum(input, dim)
    if dim is None:
        return _C._min_all(input)
    if isinstance(dim, _C.Tensor):
        return _C.minimum(input, dim)
    return return_types.min(*_C._min_dim(input, dim, keepdim))

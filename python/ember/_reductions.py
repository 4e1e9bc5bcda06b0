"""max/min: the whole-tensor value, (values, indices) along a dim, or with a tensor the elementwise maximum/minimum."""
from . import _C

__all__ = ["max", "min"]

_UNSET = object()  # an argument not given (torch's overloads tell max(x) from max(x, None), which is refused)


def _extreme(name, whole, along, elementwise):
    def fn(input, dim=_UNSET, keepdim=_UNSET, *, out=None):
        if dim is _UNSET:
            if keepdim is not _UNSET:
                raise TypeError(f"{name}() received an invalid combination of arguments - got keepdim without dim")
            return whole(input, out=out)
        if isinstance(dim, _C.Tensor) and keepdim is _UNSET:  # torch's max(input, other): elementwise
            return elementwise(input, dim, out=out)
        if dim is None or isinstance(dim, bool):
            raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
        return along(input, dim, False if keepdim is _UNSET else keepdim, out=out)

    fn.__name__ = name
    fn.__doc__ = f"torch's {name}(input), {name}(input, other) and {name}(input, dim, keepdim=False), each with out=."
    return fn


max = _extreme("max", _C._max_all, _C._max_dim, _C.maximum)
min = _extreme("min", _C._min_all, _C._min_dim, _C.minimum)

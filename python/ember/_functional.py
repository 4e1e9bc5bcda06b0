"""Module-level forms of Tensor methods (ember.transpose(x, 0, 1) ...)."""
from ._C import Tensor

__all__ = [
    "reshape", "transpose", "swapaxes", "swapdims", "t", "permute", "squeeze", "unsqueeze", "flatten",
    "unflatten", "narrow", "select", "split", "chunk", "unbind", "diagonal", "movedim", "moveaxis",
    "as_strided", "clone", "is_floating_point",
]


def _forward(name):
    method = getattr(Tensor, name)

    def fn(input, *args, **kwargs):
        return method(input, *args, **kwargs)

    fn.__name__ = name
    fn.__doc__ = f"ember.{name}(input, ...) is input.{name}(...)"
    return fn


for _name in __all__:
    globals()[_name] = _forward(_name)
del _name

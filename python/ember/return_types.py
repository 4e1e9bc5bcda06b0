"""Named tuples returned by ops with several results, printed as torch prints them."""
import collections


def _named(name, fields):
    base = collections.namedtuple(name, fields)

    class ReturnType(base):
        __slots__ = ()

        def __repr__(self):
            body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
            return f"torch.return_types.{name}(\n{body})"

    ReturnType.__name__ = ReturnType.__qualname__ = name
    return ReturnType


max = _named("max", ["values", "indices"])
min = _named("min", ["values", "indices"])

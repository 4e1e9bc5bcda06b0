"""default_collate / default_convert: samples into batches, with torch's output types and dtypes."""
import collections.abc
import copy
import re

from ... import _C

__all__ = ["default_collate", "default_convert"]

_NUMPY_NON_NUMERIC = re.compile(r"[SaUO]")
_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
_CONVERT_ERROR = "default_convert: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"

# Set in DataLoader worker processes: stacked batches are built in shared memory.
_in_worker = False


def _is_numpy(x):
    return type(x).__module__ == "numpy" and type(x).__name__ not in ("str_", "bytes_", "string_")


def _stack(batch):
    if _in_worker and batch[0].device.type == "cpu":
        shape = (len(batch),) + tuple(batch[0].shape)
        out = _C.empty(shape, dtype=batch[0].dtype).share_memory_()
        return _C.stack(batch, 0, out=out)
    return _C.stack(batch, 0)


def _rebuild_like(elem, fields):
    """A mapping of elem's type holding `fields` (a dict when the type cannot be built so)."""
    if isinstance(elem, collections.abc.MutableMapping):
        clone = copy.copy(elem)
        clone.update(fields)
        return clone
    try:
        return type(elem)(fields)
    except TypeError:
        return fields


def default_collate(batch):
    """Stacks tensors and numpy arrays along a new first dim, makes numbers into 1-d tensors (float64
    for floats, int64 for ints), keeps strings as lists, and recurses into mappings, named tuples and
    sequences (tuples become lists, as torch's)."""
    elem = batch[0]
    if isinstance(elem, _C.Tensor):
        return _stack(batch)
    if _is_numpy(elem):
        if type(elem).__name__ in ("ndarray", "memmap"):
            if _NUMPY_NON_NUMERIC.search(elem.dtype.str) is not None:
                raise TypeError(_ERROR.format(elem.dtype))
            return default_collate([_C.as_tensor(b) for b in batch])
        if elem.shape == ():  # numpy scalars
            return _C.as_tensor(batch)
    if isinstance(elem, float):
        return _C.tensor(batch, dtype=_C.float64)
    if isinstance(elem, int):
        return _C.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_like(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # named tuple
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        try:
            return type(elem)(columns)
        except TypeError:
            return columns
    raise TypeError(_ERROR.format(type(elem)))


def default_convert(data):
    """For loaders without batching: numpy arrays become tensors (recursively through mappings,
    named tuples and sequences); everything else is returned as is."""
    if isinstance(data, _C.Tensor):
        return data
    if _is_numpy(data):
        if type(data).__name__ in ("ndarray", "memmap") and _NUMPY_NON_NUMERIC.search(data.dtype.str) is not None:
            return data
        return _C.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_like(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data

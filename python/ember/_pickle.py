"""What pickles of ember objects call on load: only these functions (pickle cannot name nanobind
functions, so each forwards to the checked builder in ember._C)."""
from . import _C


def _rebuild_tensor(storage, dtype, storage_offset, size, stride, requires_grad):
    return _C._rebuild_tensor(storage, dtype, storage_offset, size, stride, requires_grad)


def _rebuild_qtensor(storage, dtype, storage_offset, size, stride, qparams):
    return _C._rebuild_qtensor(storage, dtype, storage_offset, size, stride, qparams)


def _storage_from_bytes(data, device="cpu"):
    return _C._storage_from_bytes(data, device)


def _generator_from_state(state):
    return _C._generator_from_state(state)


def _rebuild_sparse(layout, parts, size, coalesced, requires_grad):
    return _C._rebuild_sparse(layout, parts, size, coalesced, requires_grad)

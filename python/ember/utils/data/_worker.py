"""DataLoader worker processes: the worker loop, get_worker_info, how errors travel back, and how
tensors travel (in shared memory: the pickle carries the segment's name)."""
import random
import sys
import traceback

from ... import _C
from ..._C import _data
from . import _collate

__all__ = ["get_worker_info", "WorkerInfo"]

_worker_info = None


class WorkerInfo:
    """What a worker knows about itself: id, num_workers, seed, dataset (its own copy)."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)
        self.__initialized = True

    def __setattr__(self, key, value):
        if getattr(self, "_WorkerInfo__initialized", False):
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        super().__setattr__(key, value)

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, dataset={self.dataset})"


def get_worker_info():
    """In a DataLoader worker, its WorkerInfo; None in the main process."""
    return _worker_info


class ExceptionWrapper:
    """An exception caught in a worker, carried as its type and traceback text, and raised again in
    the main process with that text."""

    def __init__(self, where):
        exc_type, exc, _ = sys.exc_info()
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc, exc.__traceback__))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:  # KeyError would repr the message, escaping its newlines
            msg = _KeyErrorMessage(msg)
        try:
            exc = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exc


class _KeyErrorMessage(str):
    def __repr__(self):
        return self


class _IterationEnd:
    """A worker's iterable dataset ran out."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


# Tensors sent between processes: the storage moves to shared memory and the pickle carries the
# segment's name. A worker hands over segments it made for the batch (the receiver removes the name once
# mapped); any other tensor it sends goes as a fresh segment of its own elements.
_hand_over = False


def _rebuild_shared(name, nbytes, take_over, dtype, offset, size, stride, requires_grad):
    storage = _data.open_shared_segment(name, nbytes, take_over)
    return _C._rebuild_tensor(storage, dtype, offset, size, stride, requires_grad)


def _reduce_tensor(t):
    if t.device.type != "cpu":
        return t.__reduce_ex__(2)
    requires_grad = t.requires_grad
    if _hand_over:
        if not (t.is_shared() and _data.hand_over_segment(t)):
            t = _C.empty(tuple(t.shape), dtype=t.dtype).share_memory_().copy_(t.detach())
            _data.hand_over_segment(t)
    else:
        t.share_memory_()
    name, nbytes = _data.shared_segment(t)
    return (_rebuild_shared, (name, nbytes, _hand_over, t.dtype, t.storage_offset(), tuple(t.shape), t.stride(),
                              requires_grad))


def register_reductions():
    import multiprocessing.reduction  # here: `import ember` need not load multiprocessing
    from ...nn import Parameter
    for cls in (_C.Tensor, Parameter):
        multiprocessing.reduction.ForkingPickler.register(cls, _reduce_tensor)


def _fetch(dataset, indices, auto_collation, collate_fn, stream, drop_last):
    """One batch: from the index list (map-style) or the worker's iterator (`stream`, iterable)."""
    if stream is not None:
        if not auto_collation:
            return collate_fn(next(stream))
        data = []
        for _ in indices:
            try:
                data.append(next(stream))
            except StopIteration:
                break
        if not data or (len(data) < len(indices) and drop_last):
            raise StopIteration
        return collate_fn(data)
    if not auto_collation:
        return collate_fn(dataset[indices])
    getitems = getattr(dataset, "__getitems__", None)
    return collate_fn(getitems(indices) if callable(getitems) else [dataset[i] for i in indices])


def worker_loop(dataset, index_queue, result_queue, auto_collation, collate_fn, drop_last, seed, init_fn,
                worker_id, num_workers, iterable):
    """Runs in the worker process until it gets None: tasks are (epoch, task index, indices); results
    (epoch, task index, batch or ExceptionWrapper or _IterationEnd). ("resume", epoch) restarts an
    iterable dataset for a persistent worker's next pass."""
    global _worker_info, _hand_over
    try:
        register_reductions()  # only in workers: the main process keeps pickling tensors by value
        _C.set_num_threads(1)
        random.seed(seed)
        _C.manual_seed(seed)
        try:
            import numpy
            numpy.random.seed(numpy.random.SeedSequence([worker_id, seed - worker_id]).generate_state(4))  # as torch
        except ImportError:
            pass
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        _collate._in_worker = True
        _hand_over = True
        init_error = None
        if init_fn is not None:
            try:
                init_fn(worker_id)
            except Exception:
                init_error = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
        stream = iter(dataset) if iterable and init_error is None else None
        ended = False
        while True:
            task = index_queue.get()
            if task is None:
                break
            if task[0] == "resume":
                stream = iter(dataset) if iterable and init_error is None else None
                ended = False
                continue
            epoch, idx, indices = task
            if init_error is not None:
                result, init_error = init_error, None
            elif ended:
                result = _IterationEnd(worker_id)
            else:
                try:
                    result = _fetch(dataset, indices, auto_collation, collate_fn, stream, drop_last)
                except StopIteration:
                    ended = True
                    result = _IterationEnd(worker_id)
                except Exception:
                    result = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
            result_queue.put((epoch, idx, result))
            del result
    except KeyboardInterrupt:
        pass
    result_queue.close()
    result_queue.join_thread()

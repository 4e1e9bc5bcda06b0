"""DataLoader (torch.utils.data's): batches from a dataset in the main process, in worker processes
(batches come back through shared memory), or, for a C++ dataset, in C++ threads."""
import itertools
import os
import queue
import signal
import time
import warnings

from ... import _C
from ..._C import _data
from ._collate import default_collate, default_convert
from ._worker import ExceptionWrapper, _IterationEnd, _fetch, worker_loop
from .dataset import IterableDataset, Subset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

_FIXED_AFTER_INIT = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")
_STATUS_INTERVAL = 0.1  # seconds between checks that the workers are alive while waiting


class _InfiniteConstantSampler(Sampler):
    """An iterable dataset's 'indices': None forever (the worker's iterator decides the end)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterates over batches of `dataset`; the arguments and their checks are torch's."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if (value not in (None, False)) if name == "shuffle" else value is not None:
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, but got "
                                     f"{name}={value}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto_collation else default_convert)
        self._iterator = None
        self._initialized = True

    def __setattr__(self, name, value):
        if self.__dict__.get("_initialized") and name in _FIXED_AFTER_INIT:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    def __iter__(self):
        dataset, maps = _cpp_source(self.dataset)  # a vision dataset builds its C++ twin here: once per pass
        if dataset is not None and self._auto_collation and self.collate_fn is default_collate:
            return _CppIter(self, dataset, maps)
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if not self.persistent_workers:
            return _MultiProcessIter(self)
        if self._iterator is None:
            self._iterator = _MultiProcessIter(self)
        else:
            self._iterator._start_pass()
        return self._iterator


def _pin(data):
    """Pinned copies of the tensors in a batch (warns, once per iterator, without an accelerator)."""
    if isinstance(data, _C.Tensor):
        return data.pin_memory()
    if isinstance(data, dict):
        return {k: _pin(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_pin(d) for d in data)
    return data


class _BaseIter:
    def __init__(self, loader):
        self._loader = loader
        self._iterable = isinstance(loader.dataset, IterableDataset)
        from ... import cuda
        self._pin = loader.pin_memory and cuda.is_available()
        if loader.pin_memory and not self._pin:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.")
        self._base_seed = _data.draw_seed(loader.generator)  # torch's loader draws this before the sampler's order
        self._sampler_iter = iter(loader._index_sampler)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def _out(self, data):
        return _pin(data) if self._pin else data


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._stream = iter(loader.dataset) if self._iterable else None

    def __next__(self):
        loader = self._loader
        indices = next(self._sampler_iter)
        return self._out(_fetch(loader.dataset, indices, loader._auto_collation, loader.collate_fn, self._stream,
                                loader.drop_last))


def _cpp_source(dataset):
    """(C++ dataset, index lists of the Subsets around it, outermost first) or (None, None). A Python
    dataset whose samples are a C++ dataset's names it as `_cpp_dataset`."""
    maps = []
    while isinstance(dataset, Subset):
        maps.append(dataset.indices)
        dataset = dataset.dataset
    dataset = getattr(dataset, "_cpp_dataset", dataset)
    return (dataset, maps) if isinstance(dataset, _data.Dataset) else (None, None)


class _CppIter(_BaseIter):
    """A C++ dataset's (or Subset's of one) batches, assembled by C++ threads (num_workers of them) with no
    Python in the loop."""

    def __init__(self, loader, dataset, maps):
        super().__init__(loader)
        batches = [list(b) for b in self._sampler_iter]
        for m in maps:
            batches = [[int(m[i]) for i in b] for b in batches]
        self._stream = _data.BatchStream(dataset, batches, loader.num_workers, loader.prefetch_factor or 2,
                                         self._base_seed)

    def __next__(self):
        return self._out(list(next(self._stream)))


class _MultiProcessIter(_BaseIter):
    """Worker processes fed task by task, at most prefetch_factor tasks ahead per worker; batches are
    returned in sampler order."""

    def __init__(self, loader):
        super().__init__(loader)
        import multiprocessing  # here: `import ember` need not load it
        ctx = loader.multiprocessing_context
        ctx = multiprocessing.get_context(ctx) if isinstance(ctx, str) or ctx is None else ctx
        n = loader.num_workers
        self._result_queue = ctx.Queue()
        self._index_queues, self._workers = [], []
        self._closed = False
        for i in range(n):
            q = ctx.Queue()
            q.cancel_join_thread()
            w = ctx.Process(target=worker_loop, daemon=True,
                            args=(loader.dataset, q, self._result_queue, loader._auto_collation, loader.collate_fn,
                                  loader.drop_last, self._base_seed + i, loader.worker_init_fn, i, n, self._iterable))
            w.start()
            self._index_queues.append(q)
            self._workers.append(w)
        self._pass = 0
        self._start_pass(first=True)

    def _start_pass(self, first=False):
        if not first:  # a persistent worker's next pass: stale results are told apart by the pass number
            self._pass += 1
            self._sampler_iter = iter(self._loader._index_sampler)
            if self._iterable:
                for q in self._index_queues:
                    q.put(("resume", self._pass))
        n = len(self._workers)
        self._send_idx = self._rcvd_idx = 0
        self._tasks = {}  # task index -> [worker] while pending, [worker, result] once it came early
        self._active = [True] * n
        self._cycle = itertools.cycle(range(n))
        for _ in range(self._loader.prefetch_factor * n):
            self._put_task()

    def _put_task(self):
        try:
            indices = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(len(self._workers)):
            w = next(self._cycle)
            if self._active[w]:
                break
        else:
            return
        self._index_queues[w].put((self._pass, self._send_idx, indices))
        self._tasks[self._send_idx] = [w]
        self._send_idx += 1

    def __next__(self):
        while True:
            while self._rcvd_idx < self._send_idx:  # skip tasks of workers whose iterable ran out
                task = self._tasks[self._rcvd_idx]
                if len(task) == 2 or self._active[task[0]]:
                    break
                del self._tasks[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._loader.persistent_workers:
                    self._shutdown()
                raise StopIteration
            task = self._tasks[self._rcvd_idx]
            if len(task) == 2:
                return self._deliver(task[1])
            pass_, idx, data = self._get()
            if pass_ != self._pass or idx not in self._tasks:
                continue
            if isinstance(data, _IterationEnd):  # its later tasks are skipped above
                self._active[data.worker_id] = False
                self._put_task()
                continue
            if idx != self._rcvd_idx:
                self._tasks[idx].append(data)
                continue
            return self._deliver(data)

    def _deliver(self, data):
        del self._tasks[self._rcvd_idx]
        self._rcvd_idx += 1
        self._put_task()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return self._out(data)

    def _get(self):
        """The next result, checking every interval that the workers live; torch's timeout error."""
        timeout = self._loader.timeout
        deadline = time.monotonic() + timeout if timeout > 0 else None
        while True:
            wait = _STATUS_INTERVAL if deadline is None else max(0.0, min(_STATUS_INTERVAL, deadline - time.monotonic()))
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                self._check_workers()
                if deadline is not None and time.monotonic() >= deadline:
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None

    def _check_workers(self):
        for w in self._workers:
            if w.is_alive():
                continue
            code = w.exitcode
            self._shutdown()
            if code is not None and code < 0:
                raise RuntimeError(f"DataLoader worker (pid {w.pid}) is killed by signal: "
                                   f"{signal.strsignal(-code)}. ") from None
            raise RuntimeError(f"DataLoader worker (pid(s) {w.pid}) exited unexpectedly") from None

    def _shutdown(self):
        if self._closed:
            return
        self._closed = True
        for q in self._index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for w in self._workers:
            w.join(timeout=2.0)
            if w.is_alive():
                w.terminate()
                w.join()
        for q in self._index_queues:
            q.close()
        self._result_queue.cancel_join_thread()
        self._result_queue.close()
        for w in self._workers:  # segments of batches sent but never received
            prefix = f"ember_{w.pid}_"
            try:
                names = [f for f in os.listdir("/dev/shm") if f.startswith(prefix)]
            except OSError:
                names = []
            for f in names:
                try:
                    os.unlink(os.path.join("/dev/shm", f))
                except OSError:
                    pass

    def __del__(self):
        if not getattr(self, "_closed", True):
            self._shutdown()

"""DataLoader worker processes: batches through shared memory, torch's order and worker seeding,
worker errors with their traceback, a killed worker, timeout; shared tensors across processes."""
import multiprocessing
import multiprocessing.reduction
import os
import random
import signal
import time

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import ember
import ember.utils.data as eud


class Images(eud.Dataset):
    def __init__(self, n=40):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return ember.full((1, 4, 4), float(i)), i


class Seeds(eud.Dataset):
    """What each worker's random state gives (and which worker served the sample)."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = eud.get_worker_info()
        return info.id, info.seed, ember.initial_seed(), random.random(), ember.rand(1).item(), np.random.randint(1 << 30)


class TSeeds(tud.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = tud.get_worker_info()
        return info.id, info.seed, torch.initial_seed(), random.random(), torch.rand(1).item(), np.random.randint(1 << 30)


def shm_names():
    return {f for f in os.listdir("/dev/shm") if f.startswith("ember_")}


@pytest.mark.parametrize("kw", [{"batch_size": 8}, {"batch_size": 8, "shuffle": True, "drop_last": True},
                                {"batch_size": 5, "persistent_workers": True, "prefetch_factor": 1}])
def test_workers_match_single_process(kw):
    before = shm_names()
    loader = eud.DataLoader(Images(), num_workers=2, **kw)
    ember.manual_seed(1)
    main = list(eud.DataLoader(Images(), **{k: v for k, v in kw.items() if k not in ("persistent_workers",
                                                                                       "prefetch_factor")}))
    for _ in range(2 if kw.get("persistent_workers") else 1):
        ember.manual_seed(1)
        got = list(loader)
        assert len(got) == len(main) == len(loader)
        for (x, y), (mx, my) in zip(got, main):
            assert isinstance(x, ember.Tensor) and x.is_shared() and x.dtype == ember.float32
            assert ember.equal(x, mx) and y.tolist() == my.tolist()
    del loader, got
    assert shm_names() <= before  # every segment was removed once received


def test_worker_seeds_as_torch():
    ge, gt = ember.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    e = list(eud.DataLoader(Seeds(), batch_size=2, num_workers=2, generator=ge))
    t = list(tud.DataLoader(TSeeds(), batch_size=2, num_workers=2, generator=gt))
    for be, bt in zip(e, t):
        assert be[0].tolist() == bt[0].tolist()  # worker ids
        assert be[1].tolist() == bt[1].tolist()  # base_seed + id
        assert be[2].tolist() == bt[2].tolist()  # the worker's default generator's seed
        assert be[3].tolist() == bt[3].tolist()  # Python's random module seeded alike
        assert be[4].tolist() == pytest.approx(bt[4].tolist())  # so the worker draws torch's numbers
        assert be[5].tolist() == bt[5].tolist()  # numpy seeded alike
    assert ge.get_state().tolist() != ember.Generator().manual_seed(5).get_state().tolist()


def test_worker_init_fn_and_worker_info():
    def init(worker_id):
        info = eud.get_worker_info()
        assert info.id == worker_id and info.num_workers == 2
        np.random.seed(100 + worker_id)

    class D(eud.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return eud.get_worker_info().id

    assert eud.get_worker_info() is None
    out = list(eud.DataLoader(D(), batch_size=1, num_workers=2, worker_init_fn=init))
    assert [b.tolist() for b in out] == [[0], [1], [0], [1]]


def test_iterable_dataset_split_across_workers_as_torch():
    def make(base):
        class Stream(base):
            def __iter__(self):
                info = (eud if base is eud.IterableDataset else tud).get_worker_info()
                n = 7 if info.id == 0 else 3
                return iter(range(info.id * 100, info.id * 100 + n))
        return Stream()

    for kw in [{"batch_size": 2}, {"batch_size": 2, "drop_last": True}, {"batch_size": None}]:
        e = list(eud.DataLoader(make(eud.IterableDataset), num_workers=2, **kw))
        t = list(tud.DataLoader(make(tud.IterableDataset), num_workers=2, **kw))
        assert [x if isinstance(x, int) else x.tolist() for x in e] == [
            x if isinstance(x, int) else x.tolist() for x in t]


class Failing(eud.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise KeyError(f"bad sample {i}")
        return i


def test_worker_exception_carries_traceback():
    loader = iter(eud.DataLoader(Failing(), batch_size=2, num_workers=2))
    assert next(loader).tolist() == [0, 1]
    with pytest.raises(KeyError) as err:
        next(loader)
    msg = str(err.value)
    assert "Caught KeyError in DataLoader worker process 1." in msg
    assert "Traceback (most recent call last)" in msg and "raise KeyError" in msg and "bad sample 3" in msg
    assert next(loader).tolist() == [4, 5]  # the loader goes on, as torch's


class Slow(eud.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            time.sleep(30)
        return i


class Suicidal(eud.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


def test_killed_worker_raises():
    loader = iter(eud.DataLoader(Suicidal(), batch_size=1, num_workers=1))
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid \d+\) is killed by signal: Killed"):
        for _ in loader:
            pass
    assert time.monotonic() - start < 20


def test_timeout():
    loader = iter(eud.DataLoader(Slow(), batch_size=1, num_workers=1, timeout=1))
    assert next(loader).tolist() == [0]
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="DataLoader timed out after 1 seconds"):
        next(loader), next(loader)
    assert time.monotonic() - start < 15
    del loader


def _child_fill(t):
    t.add_(1)


def test_share_memory_between_processes():
    t = ember.arange(6, dtype=ember.float32).reshape(2, 3)
    view = t[1]
    assert not t.is_shared()
    assert t.share_memory_() is t and t.is_shared() and view.is_shared()
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    p = multiprocessing.get_context("fork").Process(target=_child_fill, args=(t,))
    p.start(), p.join()
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]]  # a forked child's writes reach the shared pages
    ctx = multiprocessing.get_context("fork")
    to_child, from_child = ctx.SimpleQueue(), ctx.SimpleQueue()
    reducers = dict(multiprocessing.reduction.ForkingPickler._extra_reducers)
    eud._worker.register_reductions()  # as in a worker; undone below, so later tests pickle by value

    def child():
        x = to_child.get()  # mapped from the segment's name
        x.mul_(10)
        from_child.put(x.is_shared())

    p = ctx.Process(target=child)
    p.start()
    try:
        to_child.put(t)
    finally:
        multiprocessing.reduction.ForkingPickler._extra_reducers.clear()
        multiprocessing.reduction.ForkingPickler._extra_reducers.update(reducers)
    assert from_child.get() is True
    p.join()
    assert t.tolist() == [[10, 20, 30], [40, 50, 60]]
    assert view.tolist() == [40, 50, 60]


def test_spawned_workers():
    from data_spawn_dataset import Filled
    loader = eud.DataLoader(Filled(), batch_size=4, num_workers=1, multiprocessing_context="spawn")
    got = list(loader)
    assert [y.tolist() for _, y in got] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert got[2][0].is_shared() and got[2][0][1].unique().tolist() == [9.0]


class Views(eud.Dataset):
    """Samples are views of one tensor: made in the worker, or shared by the main process before the fork."""

    def __init__(self, inherited):
        self.base = ember.arange(60.0).reshape(6, 10).share_memory_() if inherited else None

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if self.base is None:
            self.base = ember.arange(60.0).reshape(6, 10)
        return self.base[i]


@pytest.mark.parametrize("inherited", [False, True])
def test_workers_send_views_of_one_storage(inherited):
    ds = Views(inherited)
    for kw in [{"batch_size": None}, {"batch_size": 2, "collate_fn": lambda b: b}]:
        got = list(eud.DataLoader(ds, num_workers=1, **kw))
        rows = got if kw["batch_size"] is None else [r for b in got for r in b]
        assert [r.tolist() for r in rows] == ember.arange(60.0).reshape(6, 10).tolist()
        assert all(r.is_shared() and r.untyped_storage().nbytes() == 40 for r in rows)  # each row alone
    if inherited:
        assert ds.base.is_shared() and ds.base.sum().item() == sum(range(60))


def test_persistent_workers_shuffle_order_as_torch():
    ge, gt = ember.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    e = eud.DataLoader(list(range(12)), batch_size=5, shuffle=True, num_workers=2, persistent_workers=True, generator=ge)
    t = tud.DataLoader(list(range(12)), batch_size=5, shuffle=True, num_workers=2, persistent_workers=True, generator=gt)
    for _ in range(2):  # the base seed is drawn once; each pass draws a new order
        assert [b.tolist() for b in e] == [b.tolist() for b in t]

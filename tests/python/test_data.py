"""ember.utils.data against torch.utils.data: sampler orders, random_split, collate outputs and the
single-process DataLoader (worker processes: test_data_workers.py)."""
import collections
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import ember
import ember.utils.data as eud

from conftest import assert_same, outcome


def gens(seed):
    return ember.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)


def same_tree(e, t):
    """Equal values, dtypes and container types (ember tensors for torch's)."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), type(e)
        assert_same(e, t)
    elif isinstance(t, dict):
        assert type(e).__name__ == type(t).__name__ and list(e) == list(t)
        for k in t:
            same_tree(e[k], t[k])
    elif isinstance(t, (list, tuple)):
        assert type(e).__name__ == type(t).__name__ and len(e) == len(t), (e, t)
        for a, b in zip(e, t):
            same_tree(a, b)
    else:
        assert type(e) is type(t) and e == t, (e, t)


def raises_like(fe, ft):
    with pytest.raises(Exception) as te:
        ft()
    with pytest.raises(type(te.value), match=None) as ee:
        fe()
    assert str(ee.value) == str(te.value)


# Samplers: the same order as torch from the same seed --------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"replacement": True}, {"num_samples": 23}, {"replacement": True, "num_samples": 70},
                                {"num_samples": 4}])
def test_random_sampler_generator(kw):
    ge, gt = gens(5)
    e, t = eud.RandomSampler(range(10), generator=ge, **kw), tud.RandomSampler(range(10), generator=gt, **kw)
    assert len(e) == len(t)
    for _ in range(2):
        assert list(e) == list(t)


def test_random_sampler_default_generator():
    ember.manual_seed(3), torch.manual_seed(3)
    e, t = eud.RandomSampler(range(17)), tud.RandomSampler(range(17))
    assert [list(e), list(e)] == [list(t), list(t)]
    assert ember.rand(3).tolist() == pytest.approx(torch.rand(3).tolist())  # the default stream advanced alike


def test_subset_and_weighted_samplers():
    ge, gt = gens(1)
    idx = [3, 9, 4, 7, 100]
    assert list(eud.SubsetRandomSampler(idx, ge)) == list(tud.SubsetRandomSampler(idx, gt))
    ember.manual_seed(2), torch.manual_seed(2)
    assert list(eud.SubsetRandomSampler(idx)) == list(tud.SubsetRandomSampler(idx))
    w = [0.1, 0.5, 2.0, 0.0, 1.3]
    for repl, n in [(True, 40), (False, 5), (False, 3)]:
        ge, gt = gens(7)
        e, t = eud.WeightedRandomSampler(w, n, repl, generator=ge), tud.WeightedRandomSampler(w, n, repl, generator=gt)
        assert len(e) == len(t) and list(e) == list(t) and list(e) == list(t)
    assert eud.WeightedRandomSampler(w, 3).weights.dtype == ember.float64


def test_sequential_batch_distributed():
    assert list(eud.SequentialSampler(range(4))) == [0, 1, 2, 3]
    for n, bs, dl in [(10, 3, False), (10, 3, True), (9, 3, True), (2, 5, False)]:
        e, t = eud.BatchSampler(range(n), bs, dl), tud.BatchSampler(range(n), bs, dl)
        assert list(e) == list(t) and len(e) == len(t)
    for n, r, shuffle, dl in [(7, 3, False, False), (7, 3, True, False), (7, 3, True, True), (2, 5, False, False),
                              (20, 4, True, True)]:
        for rank in range(r):
            e = eud.DistributedSampler(range(n), r, rank, shuffle, seed=4, drop_last=dl)
            t = tud.DistributedSampler(range(n), r, rank, shuffle, seed=4, drop_last=dl)
            for epoch in (0, 3):
                e.set_epoch(epoch), t.set_epoch(epoch)
                assert list(e) == list(t) and len(e) == len(t)


def test_sampler_errors():
    for mod_e, mod_t in [(eud, tud)]:
        cases = [
            lambda m: m.RandomSampler(range(3), num_samples=0),
            lambda m: m.RandomSampler(range(3), replacement=1),
            lambda m: m.WeightedRandomSampler([1, 2], 0),
            lambda m: m.WeightedRandomSampler([[1, 2]], 2),
            lambda m: m.BatchSampler(range(3), 0, False),
            lambda m: m.BatchSampler(range(3), 2, 1),
            lambda m: m.DistributedSampler(range(3), num_replicas=2, rank=5),
            lambda m: list(m.WeightedRandomSampler([1.0, -1.0], 2)),
            lambda m: list(m.WeightedRandomSampler([0.0, 0.0], 2)),
        ]
        for c in cases:
            raises_like(lambda: c(mod_e), lambda: c(mod_t))


# random_split ------------------------------------------------------------------------------------

@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.33, 0.33, 0.34], [1, 0, 9], [0.1, 0.9]])
def test_random_split(lengths):
    ge, gt = gens(42)
    e, t = eud.random_split(range(10), lengths, generator=ge), tud.random_split(range(10), lengths, generator=gt)
    assert [list(s) for s in e] == [list(s) for s in t]
    assert all(isinstance(s, eud.Subset) for s in e)
    ember.manual_seed(9), torch.manual_seed(9)
    assert [s.indices for s in eud.random_split(range(10), lengths)] == [s.indices for s in
                                                                         tud.random_split(range(10), lengths)]


def test_random_split_errors_and_warning():
    raises_like(lambda: eud.random_split(range(10), [3, 3]), lambda: tud.random_split(range(10), [3, 3]))
    raises_like(lambda: eud.random_split(range(10), [0.5, 0.6]), lambda: tud.random_split(range(10), [0.5, 0.6]))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert [len(s) for s in eud.random_split(range(2), [0.2, 0.2, 0.6])] == [1, 0, 1]
    assert any("Length of split at index 1 is 0" in str(x.message) for x in w)


# Datasets ------------------------------------------------------------------------------------------

def test_datasets():
    a, b = ember.arange(12).reshape(6, 2), ember.arange(6)
    ds = eud.TensorDataset(a, b)
    assert len(ds) == 6 and ds[2][0].tolist() == [4, 5] and ds[2][1].item() == 2
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        eud.TensorDataset(a, ember.arange(5))
    cat = ds + eud.TensorDataset(a[:2], b[:2])
    assert isinstance(cat, eud.ConcatDataset) and len(cat) == 8 and cat[7][1].item() == 1 and cat[-1][1].item() == 1
    tcat = tud.ConcatDataset([range(3), range(4)])
    raises_like(lambda: eud.ConcatDataset([range(3), range(4)])[-8], lambda: tcat[-8])
    assert [eud.ConcatDataset([range(3), range(4)])[i] for i in range(-7, 7)] == [tcat[i] for i in range(-7, 7)]
    sub = eud.Subset(list("abcdef"), [5, 0, 2])
    assert len(sub) == 3 and sub[0] == "f" and sub.__getitems__([1, 2]) == ["a", "c"]

    class Stream(eud.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    chain = Stream(2) + Stream(3)
    assert isinstance(chain, eud.ChainDataset) and list(chain) == [0, 1, 0, 1, 2] and len(chain) == 5
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        eud.Dataset()[0]


# Collation -----------------------------------------------------------------------------------------

Point = collections.namedtuple("Point", "x y")


def collate_cases(lib):
    T = torch if lib == "torch" else ember
    return [
        [T.ones(2, 3), T.zeros(2, 3)],
        [1, 2, 3],
        [1.5, 2.0],
        [True, False],
        ["a", "bc"],
        [b"x", b"y"],
        [np.arange(4, dtype=np.float32), np.ones(4, dtype=np.float32)],
        [np.int32(3), np.int32(4)],
        [np.float64(1.5), np.float64(2)],
        [(T.ones(2), 1), (T.zeros(2), 2)],
        [[1, 2.5], [3, 4.5]],
        [{"img": T.arange(3), "label": 1, "name": "a"}, {"img": T.arange(3), "label": 0, "name": "b"}],
        [Point(1, T.tensor([1.0])), Point(2, T.tensor([2.0]))],
        [{"nested": [(1, "a"), (2, "b")]}, {"nested": [(3, "c"), (4, "d")]}],
        [T.tensor(3, dtype=T.int16), T.tensor(4, dtype=T.int16)],
    ]


@pytest.mark.parametrize("i", range(15))
def test_default_collate(i):
    same_tree(eud.default_collate(collate_cases("ember")[i]), tud.default_collate(collate_cases("torch")[i]))


def test_default_collate_errors_and_convert():
    raises_like(lambda: eud.default_collate([object()]), lambda: tud.default_collate([object()]))
    raises_like(lambda: eud.default_collate([np.array(["a"])]), lambda: tud.default_collate([np.array(["a"])]))
    raises_like(lambda: eud.default_collate([[1, 2], [3]]), lambda: tud.default_collate([[1, 2], [3]]))
    for v in [(1, 2), np.float64(2.0), np.array([1, 2], dtype=np.int16), [np.array([1.0])], "ab",
              {"a": np.zeros(2)}, Point(np.ones(1), 3), 7]:
        e, t = eud.default_convert(v), tud.default_convert(v)
        if isinstance(t, np.ndarray):
            assert isinstance(e, np.ndarray)
        else:
            same_tree(e, t)


# DataLoader in the main process ------------------------------------------------------------------

class Squares(eud.Dataset):
    def __len__(self):
        return 11

    def __getitem__(self, i):
        return {"x": float(i) ** 2, "i": i}


class TSquares(tud.Dataset):
    __len__ = Squares.__len__
    __getitem__ = Squares.__getitem__


@pytest.mark.parametrize("kw", [{}, {"batch_size": 4}, {"batch_size": 4, "drop_last": True},
                                {"batch_size": 3, "shuffle": True}, {"batch_size": None}, {"shuffle": True}])
def test_loader_matches_torch(kw):
    ember.manual_seed(11), torch.manual_seed(11)
    e, t = eud.DataLoader(Squares(), **kw), tud.DataLoader(TSquares(), **kw)
    assert len(e) == len(t)
    for _ in range(2):
        same_tree(list(e), list(t))


def test_loader_generator_sampler_and_collate_fn():
    ge, gt = gens(3)
    e = list(eud.DataLoader(range(20), batch_size=6, shuffle=True, generator=ge))
    t = list(tud.DataLoader(range(20), batch_size=6, shuffle=True, generator=gt))
    same_tree(e, t)
    ge, gt = gens(3)
    e = eud.DataLoader(range(20), batch_sampler=eud.BatchSampler(eud.RandomSampler(range(20), generator=ge), 7, True))
    t = tud.DataLoader(range(20), batch_sampler=tud.BatchSampler(tud.RandomSampler(range(20), generator=gt), 7, True))
    same_tree(list(e), list(t))
    assert list(eud.DataLoader(range(5), batch_size=2, collate_fn=lambda b: sum(b))) == [1, 5, 4]
    w = [1.0, 0.0, 3.0, 1.0]
    ge, gt = gens(8)
    e = eud.DataLoader(range(4), batch_size=3, sampler=eud.WeightedRandomSampler(w, 9, generator=ge))
    t = tud.DataLoader(range(4), batch_size=3, sampler=tud.WeightedRandomSampler(w, 9, generator=gt))
    same_tree(list(e), list(t))


def test_loader_iterable_dataset():
    class Stream(eud.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    class TStream(tud.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    for kw in [{"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}]:
        same_tree(list(eud.DataLoader(Stream(), **kw)), list(tud.DataLoader(TStream(), **kw)))


def stream(m):
    class Stream(m.IterableDataset):
        def __iter__(self):
            return iter(range(3))
    return Stream()


def test_loader_argument_errors():
    cases = [
        lambda m: m.DataLoader(range(3), num_workers=-1),
        lambda m: m.DataLoader(range(3), timeout=-1),
        lambda m: m.DataLoader(range(3), prefetch_factor=2),
        lambda m: m.DataLoader(range(3), persistent_workers=True),
        lambda m: m.DataLoader(range(3), sampler=[0, 1], shuffle=True),
        lambda m: m.DataLoader(range(3), batch_sampler=[[0]], batch_size=2),
        lambda m: m.DataLoader(range(3), batch_size=None, drop_last=True),
        lambda m: m.DataLoader(m.IterableDataset(), shuffle=True),
        lambda m: m.DataLoader(stream(m), shuffle=True),
        lambda m: m.DataLoader(stream(m), sampler=[1]),
        lambda m: m.DataLoader(stream(m), batch_sampler=[[1]]),
    ]
    for c in cases:
        raises_like(lambda: c(eud), lambda: c(tud))


def test_loader_attributes_fixed_after_init():
    for name in ["batch_size", "sampler", "dataset", "persistent_workers", "drop_last", "batch_sampler",
                 "num_workers", "collate_fn"]:
        e, t = eud.DataLoader(range(3)), tud.DataLoader(range(3))
        (_, ee), (_, te) = outcome(lambda: setattr(e, name, None)), outcome(lambda: setattr(t, name, None))
        assert type(ee) is type(te) and str(ee) == str(te)


def test_pin_memory_without_accelerator_warns():
    with pytest.warns(UserWarning, match="no accelerator is found"):
        assert [b.tolist() for b in eud.DataLoader(range(4), batch_size=2, pin_memory=True)] == [[0, 1], [2, 3]]


# C++ datasets: batches assembled by C++ threads ----------------------------------------------------

@pytest.mark.parametrize("workers", [0, 2])
def test_cpp_dataset_loader(workers):
    data, target = ember.randn(50, 1, 4, 4), ember.arange(50)
    ds = ember._C._data.TensorDataset(data, target)
    assert isinstance(ds, eud.CppDataset) and len(ds) == 50
    ember.manual_seed(4), torch.manual_seed(4)
    loader = eud.DataLoader(ds, batch_size=8, shuffle=True, num_workers=workers, drop_last=True)
    order = list(tud.DataLoader(range(50), batch_size=8, shuffle=True, drop_last=True))
    batches = list(loader)
    assert len(batches) == len(loader) == 6
    for (x, y), idx in zip(batches, order):
        assert isinstance(x, ember.Tensor) and x.shape == (8, 1, 4, 4)
        assert y.tolist() == idx.tolist()
        assert ember.equal(x, data[y])
    with pytest.raises(IndexError):
        ds[50]
    ge, gt = gens(2)
    e = eud.DataLoader(eud.random_split(ds, [0.6, 0.4], generator=ge)[1], batch_size=7, num_workers=workers)
    t = tud.DataLoader(tud.random_split(range(50), [0.6, 0.4], generator=gt)[1], batch_size=7)
    assert [y.tolist() for _, y in e] == [b.tolist() for b in t]
    assert type(iter(e)).__name__ == "_CppIter"  # Subsets of a C++ dataset stay in C++

    class Wrapper(eud.Dataset):  # a Python face of a C++ dataset
        _cpp_dataset = ds

        def __len__(self):
            return len(ds)

    assert [y.tolist() for _, y in eud.DataLoader(Wrapper(), batch_size=20)] == [list(range(20)), list(range(20, 40)),
                                                                               list(range(40, 50))]


def test_cpp_dataloader_bound():
    data, target = ember.arange(60).reshape(30, 2), ember.arange(30)
    ds = ember._C._data.TensorDataset(data, target)
    ge, gt = gens(6)
    loader = ember._C._data.DataLoader(ds, batch_size=7, shuffle=True, num_workers=2, generator=ge)
    assert len(loader) == 5
    for _ in range(2):  # the C++ loader draws a base seed, then the order, as torch's
        order = list(tud.DataLoader(range(30), batch_size=7, shuffle=True, generator=gt))
        got = list(loader)
        assert [y.tolist() for _, y in got] == [b.tolist() for b in order]
        assert all(ember.equal(x[:, 0], 2 * y) for x, y in got)
    sampler = ember._C._data.SubsetRandomSampler([4, 2, 9], ember.Generator().manual_seed(0))
    got = list(ember._C._data.DataLoader(ds, batch_size=2, drop_last=True, sampler=sampler))
    assert len(got) == 1 and sorted(got[0][1].tolist()) != [] and set(got[0][1].tolist()) <= {4, 2, 9}

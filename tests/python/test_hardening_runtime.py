"""Pickling, copy and deepcopy of tensors and the objects around them, compared with torch, and
tensors through multiprocessing (by pickling: torch.multiprocessing's shared memory is not built)."""
import copy
import multiprocessing
import pickle
import pickletools

import pytest
import torch

import ember
from conftest import DTYPES, assert_same, dtype_id, to_torch


def roundtrip(x):
    return pickle.loads(pickle.dumps(x))


def layouts(lib, dtype):
    base = lib.arange(24).to(dtype).reshape(4, 6)
    return {"contiguous": base, "transposed": base.t(), "offset": base[1:, 2::2], "expanded": base[:1].expand(3, 6),
            "0-dim": base[2, 3], "empty": base[:0]}


@pytest.mark.parametrize("pair", DTYPES, ids=dtype_id)
def test_pickle_keeps_values_dtype_and_geometry(pair):
    for (name, e), t in zip(layouts(ember, pair[0]).items(), layouts(torch, pair[1]).values()):
        got = roundtrip(e)  # torch's pickle keeps the geometry too (but cannot load float8: a torch bug)
        assert_same(got, t)
        assert got._storage_nbytes() == t.untyped_storage().nbytes(), name
        c = copy.copy(e)  # a new tensor over the same storage
        assert c is not e and c.data_ptr() == e.data_ptr() and c.stride() == e.stride()


def test_views_pickled_together_get_separate_storages_as_torch():
    def check(lib):
        x = lib.arange(6.0)
        a, b = roundtrip([x, x[2:]])
        a[3] = 100
        return b.tolist(), b.storage_offset()

    assert check(ember) == check(torch) == ([2.0, 3.0, 4.0, 5.0], 2)


def test_deepcopy_keeps_storage_shared_within_one_copy():
    x = ember.arange(6.0)
    a, b, c = copy.deepcopy([x, x[2:], x.view(2, 3).t()])
    a[3] = 100
    assert b.tolist() == [2.0, 100.0, 4.0, 5.0] and c[0, 1].item() == 100
    assert x[3].item() == 3 and a.data_ptr() != x.data_ptr()
    assert b.storage_offset() == 2 and c.stride() == (1, 3)


def test_autograd_state_through_pickle_and_deepcopy():
    for lib in (ember, torch):
        x = lib.ones(3, requires_grad=True)
        x.grad = lib.full((3,), 2.0)
        p, d = roundtrip(x), copy.deepcopy(x)
        assert p.requires_grad and p.is_leaf and p.grad is None  # pickle leaves .grad out, as torch
        assert d.requires_grad and d.is_leaf and d.grad.tolist() == [2.0] * 3
        assert d.grad.data_ptr() != x.grad.data_ptr()
        y = x * 2
        loaded = roundtrip(y)  # a non-leaf pickles as a leaf that requires grad
        assert loaded.is_leaf and loaded.requires_grad and loaded.tolist() == [2.0] * 3
        (loaded * 3).sum().backward()
        assert loaded.grad.tolist() == [3.0] * 3
        assert not roundtrip(lib.ones(2)).requires_grad


def test_deepcopy_of_a_non_leaf_raises_as_torch():
    for lib in (ember, torch):
        x = lib.ones(2, requires_grad=True)
        for non_leaf in (x * 2, x[:1]):
            with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user \\(graph leaves\\) "
                               "support the deepcopy protocol"):
                copy.deepcopy(non_leaf)


def test_deepcopy_memo_returns_one_copy_per_tensor():
    x = ember.ones(2)
    a, b = copy.deepcopy([x, x])
    assert a is b
    assert copy.deepcopy({"w": x, "again": x})["again"] is not x


def test_pickle_loads_only_through_ember_functions():
    data = pickle.dumps(ember.arange(4.0)[1:])
    strings = [arg for op, arg, _ in pickletools.genops(data) if isinstance(arg, str)]
    assert set(strings) == {"ember._pickle", "_rebuild_tensor", "_storage_from_bytes", "ember._C", "float32"}, strings


@pytest.mark.parametrize("geometry", [((4,), (1,), 1), ((2,), (4,), 0), ((3,), (2**62,), 0), ((2,), (-1,), 1),
                                      ((2,), (1,), -1), ((2,), (1,), 2**63 - 1), ((-1,), (1,), 0), ((2,), (1, 1), 0)])
def test_rebuild_rejects_geometry_outside_the_storage(geometry):
    sizes, strides, offset = geometry
    storage = ember.arange(4.0).__reduce_ex__(2)[1][0]
    with pytest.raises((RuntimeError, ValueError)):
        ember._C._rebuild_tensor(storage, ember.float32, offset, sizes, strides, False)


@pytest.mark.parametrize("obj", [ember.float32, ember.bfloat16, ember.float8_e5m2, ember.bool, ember.device("cpu"),
                                 ember.device("cpu", 0), ember.Size([2, 3]), ember.Size([])],
                         ids=repr)
def test_metadata_objects_pickle_and_copy(obj):
    for got in (roundtrip(obj), copy.copy(obj), copy.deepcopy(obj)):
        assert got == obj and type(got) is type(obj) and repr(got) == repr(obj)


def test_generator_pickles_with_its_state():
    g = ember.Generator().manual_seed(7)
    ember.rand(5, generator=g)
    for twin in (roundtrip(g), copy.deepcopy(g)):
        assert twin is not g and twin.initial_seed() == g.initial_seed()
        assert ember.rand(5, generator=twin).tolist() == ember.rand(5, generator=copy.deepcopy(g)).tolist()
    assert ember.rand(3, generator=roundtrip(g)).equal(ember.rand(3, generator=g))


def negate(t):
    return -t


def total(t):
    return float(t.sum())


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_pool_map_passes_tensors(method):
    inputs = [ember.arange(6.0).reshape(2, 3) * k for k in range(4)] + [ember.ones(3, dtype=ember.bfloat16).t()]
    func = negate if method == "fork" else ember.neg  # a spawned child imports ember, not the test module
    with multiprocessing.get_context(method).Pool(2) as pool:
        outputs = pool.map(func, inputs)
    for x, y in zip(inputs, outputs):
        assert_same(y, to_torch(-x))


def test_queue_passes_tensors_to_a_child_and_back():
    ctx = multiprocessing.get_context("fork")
    to_child, from_child = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=queue_worker, args=(to_child, from_child))
    child.start()
    x = ember.randn(3, 4).requires_grad_()
    to_child.put([x, x[1:]])
    back = from_child.get(timeout=60)
    child.join(60)
    assert child.exitcode == 0
    assert back[0].tolist() == (x * 2).tolist() and back[1] == pytest.approx(float(x[1:].sum()))


def queue_worker(inbox, outbox):
    a, b = inbox.get(timeout=60)
    outbox.put([(a * 2).detach(), float(b.sum())])

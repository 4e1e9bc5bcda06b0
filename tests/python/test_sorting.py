"""Order statistics beyond the op database (tests/python/opdb_order.py runs every dtype, layout and form):
named tuples and out= tuples, torch's node names, long rows (radix sort, stability, topk's heap path), errors
with their messages, and the C++ face's checks seen from Python."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same

rng = np.random.default_rng(7)


def pair(values, dtype="float32"):
    a = np.asarray(values)
    return ember.from_numpy(a.copy()).to(getattr(ember, dtype)), torch.from_numpy(a.copy()).to(getattr(torch, dtype))


def same_tuple(e, t):
    assert type(e).__name__ == type(t).__name__, (type(e), type(t))
    assert len(e) == len(t)
    for a, b in zip(e, t):
        assert_same(a, b)


@pytest.mark.parametrize("call", [
    lambda m, x: m.sort(x, 1), lambda m, x: m.topk(x, 2), lambda m, x: m.kthvalue(x, 2, 0),
    lambda m, x: m.median(x, 1), lambda m, x: m.nanmedian(x, 0, True), lambda m, x: m.mode(x),
    lambda m, x: m.cummax(x, 1), lambda m, x: m.cummin(x, 0), lambda m, x: x.sort(descending=True),
    lambda m, x: x.topk(1, largest=False)])
def test_named_tuples(call):
    e, t = pair(rng.integers(-3, 3, (3, 5)).astype(np.float32))
    r, rt = call(ember, e), call(torch, t)
    same_tuple(r, rt)
    assert_same(r.values, rt.values)
    assert_same(r.indices, rt.indices)
    assert repr(r).startswith(f"torch.return_types.{type(rt).__name__}(")


@pytest.mark.parametrize("name,args", [("sort", (1,)), ("topk", (2,)), ("kthvalue", (2,)), ("median", (0,)),
                                       ("nanmedian", (1,)), ("mode", (1,)), ("cummax", (1,)), ("cummin", (0,))])
def test_out_tuples(name, args):
    e, t = pair(rng.standard_normal((3, 5)))
    ev, ei = ember.empty(0), ember.empty(0, dtype=ember.int64)
    tv, ti = torch.empty(0), torch.empty(0, dtype=torch.int64)
    r = getattr(ember, name)(e, *args, out=(ev, ei))
    rt = getattr(torch, name)(t, *args, out=(tv, ti))
    assert r.values is ev and r.indices is ei
    same_tuple(r, rt)
    with pytest.raises(RuntimeError):
        getattr(ember, name)(e, *args, out=(ember.empty(0, dtype=ember.float64), ei))
    with pytest.raises(RuntimeError):
        getattr(ember, name)(e, *args, out=(ev, ember.empty(0)))


def test_single_outs():
    e, t = pair(rng.standard_normal((3, 5)))
    for fn, args in [("msort", ()), ("histc", (5,)), ("quantile", (0.3, 1))]:
        out_e, out_t = ember.empty(0), torch.empty(0)
        assert getattr(ember, fn)(e, *args, out=out_e) is out_e
        getattr(torch, fn)(t, *args, out=out_t)
        assert_same(out_e, out_t)
    be, bt = pair([0.0, 1.0, 2.0])
    oe, ot = ember.empty(0, dtype=ember.int32), torch.empty(0, dtype=torch.int32)
    assert ember.searchsorted(be, e, out_int32=True, out=oe) is oe
    assert_same(oe, torch.searchsorted(bt, t, out_int32=True, out=ot))
    oe, ot = ember.empty(0, dtype=ember.int64), torch.empty(0, dtype=torch.int64)
    assert_same(ember.bucketize(e, be, out=oe), torch.bucketize(t, bt, out=ot))
    oe = ember.empty(0, dtype=ember.int64)
    assert ember.argsort(e, stable=True, out=oe) is oe
    assert_same(oe, torch.argsort(t, stable=True))


@pytest.mark.parametrize("call,node", [
    (lambda m, x: m.sort(x)[0], "SortBackward0"), (lambda m, x: m.sort(x, stable=True)[0], "SortBackward1"),
    (lambda m, x: m.msort(x), "SortBackward0"), (lambda m, x: m.topk(x, 2)[0], "TopkBackward0"),
    (lambda m, x: m.kthvalue(x, 2)[0], "KthvalueBackward0"), (lambda m, x: m.median(x), "MedianBackward0"),
    (lambda m, x: m.median(x, 1)[0], "MedianBackward1"), (lambda m, x: m.nanmedian(x), "NanmedianBackward0"),
    (lambda m, x: m.nanmedian(x, 0)[0], "NanmedianBackward1"), (lambda m, x: m.mode(x, 1)[0], "ModeBackward0"),
    (lambda m, x: m.cummax(x, 1)[0], "CummaxBackward0"), (lambda m, x: m.cummin(x, 0)[0], "CumminBackward0")])
def test_node_names(call, node):
    e, t = pair(rng.standard_normal((3, 5)))
    re_, rt = call(ember, e.requires_grad_()), call(torch, t.requires_grad_())
    assert re_.grad_fn.name() == rt.grad_fn.name() == node
    ge, = ember.autograd.grad(re_.sum() * 1.5, [e])
    gt, = torch.autograd.grad(rt.sum() * 1.5, [t])
    assert_same(ge, gt, check_strides=False)


def test_median_gradient_splits_among_ties():
    e, t = pair([1.0, 2.0, 2.0, 3.0, 2.0])
    e.requires_grad_(), t.requires_grad_()
    ember.median(e).backward()
    torch.median(t).backward()
    assert_same(e.grad, t.grad)


def test_out_refuses_autograd():
    e = ember.randn(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        ember.sort(e, out=(ember.empty(0), ember.empty(0, dtype=ember.int64)))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64"])
@pytest.mark.parametrize("descending", [False, True])
def test_long_rows_are_stable(dtype, descending):
    """Rows long enough for the radix sort, many ties: ember's sort equals torch's stable sort."""
    a = rng.integers(-40, 40, (3, 5000)).astype(np.float64)
    if dtype == "uint8":
        a = np.abs(a)
    if dtype in ("float16", "bfloat16", "float32", "float64"):
        a[:, ::97] = np.nan
        a[:, 1::89] = -0.0
        a[:, 2::83] = np.inf
    e, t = pair(a, dtype)
    same_tuple(ember.sort(e, descending=descending), torch.sort(t, descending=descending, stable=True))
    assert_same(ember.argsort(e, 0, descending), torch.argsort(t, dim=0, descending=descending, stable=True))


def test_unstable_sort_of_a_long_row():
    """torch's stable=False orders ties its own way on long rows: the values match, the indices sort them."""
    e, t = pair(rng.integers(0, 50, 100000).astype(np.float32))
    v, i = ember.sort(e)
    assert_same(v, torch.sort(t).values)
    assert_same(ember.gather(e, 0, i), torch.sort(t).values)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float16", "float64"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_long_rows(dtype, largest):
    """The heap path (k * 64 <= n) and the selection path, with ties: torch's indices exactly."""
    a = rng.integers(-100, 100, (4, 7000)).astype(np.float64)
    if dtype.startswith("float"):
        a[1] = rng.standard_normal(7000)
        a[2, ::501] = np.nan
    e, t = pair(a, dtype)
    for k in (1, 50, 109, 2000):
        for sorted_ in (True, False):
            same_tuple(ember.topk(e, k, largest=largest, sorted=sorted_),
                       torch.topk(t, k, largest=largest, sorted=sorted_))


@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_selection_ties_long_rows(dtype):
    a = rng.integers(-5, 5, (3, 301)).astype(np.float64)
    e, t = pair(a, dtype)
    for k in (1, 77, 151, 301):
        same_tuple(ember.kthvalue(e, k), torch.kthvalue(t, k))
    same_tuple(ember.median(e, 1), torch.median(t, 1))
    same_tuple(ember.nanmedian(e, 0), torch.nanmedian(t, 0))
    same_tuple(ember.mode(e, 1), torch.mode(t, 1))
    same_tuple(ember.mode(e, 0), torch.mode(t, 0))
    assert_same(ember.median(e), torch.median(t))


def test_nanmedian_all_nan():
    e, t = pair(np.full((2, 3), np.nan))
    same_tuple(ember.nanmedian(e, 1), torch.nanmedian(t, 1))
    assert_same(ember.nanmedian(e), torch.nanmedian(t))


def test_unique_long():
    e, t = pair(rng.integers(-1000, 1000, 200000), "int64")
    for kw in ({}, {"return_counts": True}, {"return_inverse": True, "return_counts": True}):
        r, rt = ember.unique(e, **kw), torch.unique(t, **kw)
        for a, b in zip(r if kw else [r], rt if kw else [rt]):
            assert_same(a, b)


def test_searchsorted_and_bucketize_long():
    be, bt = pair(np.sort(rng.standard_normal(1000)))
    ve, vt = pair(rng.standard_normal((50, 40)))
    for right in (False, True):
        assert_same(ember.searchsorted(be, ve, right=right), torch.searchsorted(bt, vt, right=right))
        assert_same(ember.bucketize(ve, be, right=right), torch.bucketize(vt, bt, right=right))
    assert_same(ember.searchsorted(be, 0.25), torch.searchsorted(bt, 0.25))
    assert_same(ember.bucketize(0.25, be), torch.bucketize(0.25, bt))


@pytest.mark.parametrize("call,message", [
    (lambda m, x: m.topk(x, 9), "selected index k out of range"),
    (lambda m, x: m.kthvalue(x, 0), r"kthvalue\(\): selected number k out of range for dimension 1"),
    (lambda m, x: m.quantile(x, 1.5), r"quantile\(\) q must be in the range \[0, 1\] but got 1.5"),
    (lambda m, x: m.quantile(x, 0.5, interpolation="cubic"), "interpolation must be one of linear"),
    (lambda m, x: m.quantile(x.double(), 0.5, out=m.empty(0)), "out tensor must be same dtype"),
    (lambda m, x: m.searchsorted(x, x[0], side="up"), "side can only be 'left' or 'right' but got up"),
    (lambda m, x: m.searchsorted(x, x, side="left", right=True), "side and right can't be set to opposites"),
    (lambda m, x: m.histc(x, 4, 2, 1), "max must be larger than min"),
    (lambda m, x: m.histc(x, 4, float("nan"), 1), r"range of \[nan, 1\] is not finite"),
    (lambda m, x: m.bincount(x.long() - 5), "1-d non-negative integral inputs"),
    (lambda m, x: m.unique(x, dim=0).sum() + m.unique(m.empty(0, 3), dim=1).sum(), "aren't selected"),
])
def test_error_messages(call, message):
    e, t = pair(rng.standard_normal((3, 4)))
    with pytest.raises(RuntimeError, match=message):
        call(torch, t)
    with pytest.raises(RuntimeError, match=message):
        call(ember, e)


def test_error_types():
    e = ember.randn(3, 4)
    with pytest.raises(IndexError):
        ember.sort(e, 2)
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        ember.median(ember.empty(0, 3), 0)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        ember.kthvalue(e > 0, 1)
    with pytest.raises(NotImplementedError):
        ember.sort(e.to(ember.float8_e4m3fn))
    with pytest.raises(RuntimeError, match="topk does not support bool"):
        ember.topk(e > 0, 1)
    with pytest.raises(IndexError, match="tensor has no dimensions"):
        ember.unique(ember.tensor(1.0), dim=0)


@pytest.mark.parametrize("descending", [False, True])
def test_unstable_sort_matches_torch_below_radix_rows(descending):
    """Rows under 512: std::sort as torch calls it, so even unstable ties come out at torch's indices."""
    a = rng.integers(-4, 4, (6, 300)).astype(np.float32)
    a[0, ::7] = np.nan
    e, t = pair(a)
    same_tuple(ember.sort(e, descending=descending), torch.sort(t, descending=descending))
    same_tuple(ember.sort(e, 0, descending), torch.sort(t, 0, descending))


@pytest.mark.parametrize("largest", [True, False])
def test_topk_rows_of_changing_scale(largest):
    """Each row's threshold starts from the previous row's: rows of other scales (guesses too high or too low),
    constant rows and rows with one NaN still give torch's values and indices."""
    a = rng.standard_normal((40, 5000)) * (10.0 ** (np.arange(40) % 7 - 3))[::-1, None]
    a[5] = 1.0
    a[9, 77] = np.nan
    a[20:25] = -a[20:25]
    for dtype in ("float32", "float64"):
        e, t = pair(a, dtype)
        for k in (1, 7, 60):
            same_tuple(ember.topk(e, k, largest=largest), torch.topk(t, k, largest=largest))


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float16", "float32"])
def test_median_of_nothing(dtype):
    """torch's median of an empty tensor is NaN cast to the dtype (int64's minimum, uint8's 0)."""
    e, t = pair(np.zeros(0), dtype)
    assert_same(ember.median(e), torch.median(t))
    assert_same(ember.nanmedian(e), torch.nanmedian(t))


@pytest.mark.parametrize("dtype", ["int64", "float32", "int16", "float64"])
@pytest.mark.parametrize("descending", [False, True])
def test_long_rows_sort_stably_across_pieces(dtype, descending):
    # rows of >= 64K elements are radix-sorted in pieces by several threads: stable, as torch's stable sort
    g = torch.Generator().manual_seed(7)
    t = torch.randint(-500, 500, (200_003,), generator=g).to(getattr(torch, dtype))
    e = ember.from_numpy(t.numpy().copy())
    ev, ei = ember.sort(e, stable=True, descending=descending)
    tv, ti = torch.sort(t, stable=True, descending=descending)
    assert np.array_equal(ev.numpy(), tv.numpy()) and np.array_equal(ei.numpy(), ti.numpy())
    eu, ec = ember.unique(e, return_counts=True)
    tu, tc = torch.unique(t, return_counts=True)
    assert np.array_equal(eu.numpy(), tu.numpy()) and np.array_equal(ec.numpy(), tc.numpy())


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("spread", [50, 9_000, 2**40])
def test_unique_of_many_integers_as_torch(dtype, spread):
    # integers spanning fewer values than there are elements are counted, not sorted: same results as torch's
    info = torch.iinfo(getattr(torch, dtype))
    g = torch.Generator().manual_seed(spread % 1000)
    t = torch.randint(max(info.min, -spread), min(info.max, spread), (3, 4000), generator=g).to(getattr(torch, dtype))
    e = ember.from_numpy(t.numpy().copy())
    got = ember.unique(e, return_inverse=True, return_counts=True)
    want = torch.unique(t, return_inverse=True, return_counts=True)
    for a, b in zip(got, want):
        assert_same(a, b)

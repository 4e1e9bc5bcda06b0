"""The scatter family beyond the op database: torch's error messages, warnings, node names, the parallel kernel
paths (private bins, runs along dim, chunked masked_select) on large inputs, out= and in-place semantics."""
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome


def both(fn):
    """fn(m) in ember and torch: (ember result or exception, torch result or exception)."""
    return outcome(lambda: fn(ember)), outcome(lambda: fn(torch))


def same_error(fn):
    (re_, ee), (rt, et) = both(fn)
    assert et is not None, f"torch returned {rt}"
    assert ee is not None, f"ember returned {re_}; torch raised {et!r}"
    assert type(ee).__name__ == type(et).__name__ and str(ee) == str(et), (ee, et)


def same_value(fn, **kw):
    (re_, ee), (rt, et) = both(fn)
    assert et is None and ee is None, (ee, et)
    if isinstance(rt, tuple):
        for a, b in zip(re_, rt):
            assert_same(a, b, **kw)
    else:
        assert_same(re_, rt, **kw)


X = lambda m: m.arange(12.0).view(3, 4)  # noqa: E731
I = lambda m, v: m.tensor(v)  # noqa: E731

ERRORS = {
    "scatter index dtype": lambda m: m.scatter(X(m), 0, I(m, [[0.0]]), X(m)),
    "scatter src dtype": lambda m: m.scatter(X(m), 0, I(m, [[0]]), X(m).double()),
    "scatter out of bounds": lambda m: m.scatter(X(m), 0, I(m, [[0, 5]]), X(m)),
    "scatter negative": lambda m: m.scatter(X(m), 1, I(m, [[0, -1]]), X(m)),
    "scatter rank": lambda m: m.scatter(X(m), 0, I(m, [0]), X(m)),
    "scatter shape": lambda m: m.scatter(X(m), 0, m.zeros(4, 4, dtype=m.long), X(m)),
    "scatter value shape": lambda m: m.scatter(X(m), 0, m.zeros(1, 5, dtype=m.long), 1.0),
    "scatter src rank": lambda m: m.scatter(X(m), 0, I(m, [[0]]), m.tensor(3.0)),
    "scatter reduce name": lambda m: m.scatter(X(m), 0, I(m, [[0]]), X(m), reduce="max"),
    "scatter value overflow": lambda m: m.scatter(X(m).byte(), 0, I(m, [[0]]), 300),
    "scatter_ expanded": lambda m: m.zeros(1, 4).expand(3, 4).scatter_(0, I(m, [[0]]), X(m)),
    "scatter 0-dim out of bounds": lambda m: m.scatter(m.tensor(1.0), 0, m.tensor(1), m.tensor(5.0)),
    "scatter_add out of bounds": lambda m: m.scatter_add(X(m), 1, I(m, [[4]]), X(m)),
    "scatter_reduce name": lambda m: m.scatter_reduce(X(m), 0, I(m, [[0]]), X(m), "add"),
    "scatter_reduce mean bool": lambda m: m.scatter_reduce(X(m).bool(), 0, I(m, [[0]]), X(m).bool(), "mean"),
    "index_add vector": lambda m: m.index_add(X(m), 0, I(m, [[0]]), X(m)),
    "index_add dtype": lambda m: m.index_add(X(m), 0, I(m, [0]), X(m)[:1].double()),
    "index_add count": lambda m: m.index_add(X(m), 0, I(m, [0, 1]), X(m)),
    "index_add shape": lambda m: m.index_add(X(m), 0, I(m, [0]), m.ones(1, 5)),
    "index_add scatter route bounds": lambda m: m.index_add(X(m), 1, I(m, [4]), m.ones(3, 1)),
    "index_add bounds": lambda m: m.index_add(m.zeros(2, 3, 4), 1, I(m, [3]), m.ones(2, 1, 4)),
    "index_add 1-d bounds": lambda m: m.index_add(m.zeros(3), 0, I(m, [-1]), m.ones(1)),
    "index_add alpha overflow": lambda m: m.index_add(m.zeros(2, dtype=m.int8), 0, I(m, [0]), m.ones(1, dtype=m.int8),
                                                      alpha=300),
    "index_copy int32": lambda m: m.index_copy(X(m), 0, I(m, [0]).int(), X(m)[:1]),
    "index_copy bounds": lambda m: m.index_copy(X(m), 0, I(m, [3]), X(m)[:1]),
    "index_copy slices": lambda m: m.index_copy(X(m), 0, I(m, [0]), m.ones(1, 5)),
    "index_copy rank": lambda m: m.index_copy(X(m), 0, I(m, [0]), m.ones(4)),
    "index_copy count": lambda m: m.index_copy(X(m), 0, I(m, [0, 1]), m.ones(3, 4)),
    "index_fill int32": lambda m: m.index_fill(X(m), 0, I(m, [0]).int(), 1),
    "index_fill bounds": lambda m: m.index_fill(X(m), 0, I(m, [3]), 1),
    "index_fill value rank": lambda m: m.index_fill(X(m), 0, I(m, [0]), m.ones(1)),
    "index_fill matrix index": lambda m: m.index_fill(X(m), 0, I(m, [[0]]), 1),
    "index_reduce name": lambda m: m.index_reduce(X(m), 0, I(m, [0]), X(m)[:1], "sum"),
    "index_reduce bounds": lambda m: m.index_reduce(X(m), 0, I(m, [-1]), X(m)[:1], "amax"),
    "index_reduce mean bool": lambda m: m.index_reduce(X(m).bool(), 0, I(m, [0]), X(m)[:1].bool(), "mean"),
    "take bounds": lambda m: m.take(X(m), I(m, [12])),
    "take negative bounds": lambda m: m.take(X(m), I(m, [-13])),
    "take int32": lambda m: m.take(X(m), I(m, [0]).int()),
    "take empty": lambda m: m.take(m.zeros(0), I(m, [0])),
    "take out dtype": lambda m: m.take(X(m), I(m, [0]), out=m.empty(0, dtype=m.float64)),
    "put_ count": lambda m: X(m).put_(I(m, [0, 1]), m.ones(1)),
    "put_ dtype": lambda m: X(m).put_(I(m, [0]), m.ones(1, dtype=m.float64)),
    "put_ bounds": lambda m: X(m).put_(I(m, [12]), m.ones(1)),
    "put_ empty": lambda m: m.zeros(0).put_(I(m, [0]), m.ones(1)),
    "put_ expanded": lambda m: m.zeros(1).expand(3).put_(I(m, [0]), m.ones(1)),
    "take_along_dim dtype": lambda m: m.take_along_dim(X(m), I(m, [[0]]).int(), 1),
    "take_along_dim rank": lambda m: m.take_along_dim(X(m), I(m, [0]), 0),
    "take_along_dim 0-dim": lambda m: m.take_along_dim(m.tensor(3.0), m.tensor(0), 0),
    "masked_select mask dtype": lambda m: m.masked_select(X(m), m.ones(3, 4, dtype=m.uint8)),
    "masked_select out dtype": lambda m: m.masked_select(X(m), X(m) > 3, out=m.empty(0, dtype=m.int64)),
    "masked_scatter short source": lambda m: m.masked_scatter(X(m), X(m) > 3, m.ones(2)),
    "masked_scatter dtype": lambda m: m.masked_scatter(X(m), X(m) > 3, m.ones(12, dtype=m.float64)),
    "masked_scatter mask dtype": lambda m: m.masked_scatter(X(m), (X(m) > 3).byte(), m.ones(12)),
    "scatter out dtype": lambda m: m.scatter_add(X(m), 0, I(m, [[0]]), X(m), out=m.empty(0, dtype=m.float64)),
}


@pytest.mark.parametrize("case", list(ERRORS), ids=str)
def test_errors_match_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(ERRORS[case])


def test_out_of_range_index_never_crashes():
    # far outside, negative, in each kernel path (small, along dim, private bins)
    for bad in (1 << 40, -(1 << 40), 1024):
        idx = np.zeros(1 << 17, dtype=np.int64)
        idx[77777] = bad
        for m in (ember,):
            i = m.from_numpy(idx)
            with pytest.raises(RuntimeError, match=f"index {bad} is out of bounds for dimension 0 with size 1024"):
                m.zeros(1024).scatter_add_(0, i, m.ones(1 << 17))
            with pytest.raises(RuntimeError, match="out of bounds"):
                m.zeros(1024, 2).scatter_(0, i.view(-1, 1).expand(-1, 2), 1.0)


def test_take_along_dim_checks_bounds():
    # torch 2.13 reads past the row here (its expanded-index gather has no bounds check); ember raises
    x, i = ember.arange(12.0).view(3, 4), ember.tensor([[0], [1], [4]])
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 1 with size 4"):
        ember.take_along_dim(x, i, 1)


def test_private_bins_write_nothing_on_error():
    idx = ember.zeros(1 << 17, dtype=ember.int64)
    idx[-1] = 5000
    x = ember.zeros(1024)
    with pytest.raises(RuntimeError):
        x.scatter_add_(0, idx, ember.ones(1 << 17))
    assert x.sum().item() == 0


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16"])
def test_large_inputs_take_every_path(reduce, dtype):
    rng = np.random.default_rng(1)
    cases = [((300_000,), (1000,), 0),       # one long run into few bins: private bins
             ((4, 70_000), (4, 64), 1),       # a few runs along dim
             ((70_000, 3), (50, 3), 0),       # runs along dim 0 (strided)
             ((2, 50_000), (2, 50_000), 0)]   # no run along dim: each position its own target
    for index_shape, self_shape, dim in cases:
        idx = rng.integers(0, self_shape[dim], index_shape)
        src = rng.uniform(0.5, 1.5, index_shape) if reduce == "prod" else rng.uniform(-100, 100, index_shape)
        base = rng.uniform(-10, 10, self_shape)

        def run(m):
            d = getattr(m, dtype)
            return m.from_numpy(base).to(d).scatter_reduce(dim, m.from_numpy(idx), m.from_numpy(src).to(d), reduce)
        (e, ee), (t, et) = both(run)
        assert ee is None and et is None
        if reduce == "prod" and dtype.startswith("int"):
            continue  # integer products of many factors overflow in different orders
        tol = {"float16": 5e-2, "float32": 1e-4}.get(dtype, 1e-9)
        assert_same(e, t, rtol=tol, atol=tol * 100 if reduce in ("sum", "mean") else tol)


def test_scatter_assign_last_wins_in_order():
    idx = np.zeros((100_000, 2), dtype=np.int64)
    src = np.arange(200_000, dtype=np.float64).reshape(100_000, 2)
    same_value(lambda m: m.zeros(3, 2, dtype=m.float64).scatter_(0, m.from_numpy(idx), m.from_numpy(src)))
    same_value(lambda m: m.zeros(3).put_(m.zeros(100, dtype=m.long), m.arange(100.0)))
    same_value(lambda m: m.zeros(3).index_copy_(0, m.tensor([1, 1, 1]), m.tensor([1.0, 2.0, 3.0])))


def test_masked_select_large_and_broadcast():
    rng = np.random.default_rng(2)
    for n in (1, 65535, 65536, 65537, 1_000_003):
        data, mask = rng.random(n, dtype=np.float32), rng.random(n) < 0.5
        same_value(lambda m: m.masked_select(m.from_numpy(data), m.from_numpy(mask)))
    mask = rng.random((4, 1, 5)) < 0.3
    same_value(lambda m: m.masked_select(m.arange(15).view(3, 5).t().t(), m.from_numpy(mask)))
    for dtype in ("bool", "int8", "int16", "float64", "bfloat16"):
        same_value(lambda m: m.masked_select(m.arange(-5, 5).to(getattr(m, dtype)), m.arange(10) % 3 == 0))


def test_node_names():
    def names(m):
        x, s = m.rand(3, 4, requires_grad=True), m.rand(3, 4, requires_grad=True)
        i, v = m.tensor([[0, 1, 2, 0]]), m.tensor([0, 2])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = [m.scatter(x, 0, i, s), m.scatter(x, 0, i, 1.0), m.scatter(x, 0, i, s, reduce="add"),
                    m.scatter_add(x, 0, i, s), m.scatter_reduce(x, 0, i, s, "amax"), m.index_add(x, 0, v, s[:2]),
                    m.index_copy(x, 0, v, s[:2]), m.index_fill(x, 0, v, 1.0),
                    m.index_fill(x, 0, v, m.tensor(1.0, requires_grad=True)), m.index_reduce(x, 0, v, s[:2], "prod"),
                    m.masked_select(x, x > 0.5), m.masked_scatter(x, x > 0.5, s), m.take(x, v),
                    m.take_along_dim(x, i, 0), m.put(x, v, s[0, :2]), x.clone().scatter_(0, i, s)]
        return [o.grad_fn.name() for o in outs]
    assert names(ember) == names(torch)


def test_not_implemented_backward():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda m: m.scatter(m.rand(3, requires_grad=True), 0, m.tensor([0]), m.rand(1), reduce="add")
                   .sum().backward())
        same_error(lambda m: m.scatter_reduce(m.rand(3, requires_grad=True), 0, m.tensor([0]), m.rand(1), "max")
                   .sum().backward())


def test_gradients_of_special_cases():
    def grads(m, reduce, include_self):
        x = m.tensor([1.0, 0.0, 3.0, 2.0], requires_grad=True)
        s = m.tensor([0.0, 2.0, 3.0, 0.0, 5.0], requires_grad=True)
        i = m.tensor([0, 0, 2, 3, 3])
        y = m.scatter_reduce(x, 0, i, s, reduce, include_self=include_self)
        y.backward(m.tensor([1.0, 2.0, 3.0, 4.0]))
        z = x.detach().requires_grad_().index_reduce(0, i, s.detach().requires_grad_(), "amax" if reduce == "sum"
                                                      else reduce, include_self=include_self)
        return x.grad, s.grad, z.detach()
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                same_value(lambda m: grads(m, reduce, include_self))


def test_deprecation_and_beta_warnings_once():
    for fn, text in [(lambda m: m.scatter(m.zeros(3), 0, m.tensor([0]), m.ones(1), reduce="add"),
                      "reduce argument of torch.scatter"),
                     (lambda m: m.index_reduce(m.zeros(3), 0, m.tensor([0]), m.ones(1), "amax"), "index_reduce() is in beta")]:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fn(ember)
            fn(ember)
        assert sum(text in str(x.message) for x in w) <= 1


def test_out_and_inplace_forms():
    same_value(lambda m: m.scatter_add(X(m), 0, I(m, [[0, 2]]), X(m), out=m.empty(3, 4).t()))
    same_value(lambda m: m.masked_select(X(m).t(), (X(m) > 4).t(), out=m.empty(5)))
    x = ember.zeros(3, 4)
    assert x.index_add_(1, ember.tensor([0]), ember.ones(3, 1)) is x
    v = ember.zeros(4, 3).t()
    v.scatter_(1, ember.tensor([[3], [0], [1]]), 7.0)  # a view is written through
    same_value(lambda m: m.zeros(4, 3).t().put_(m.tensor([1, 5]), m.tensor([1.0, 2.0])))
    assert v.sum().item() == 21


def test_where_nonzero_argwhere():
    for make in (lambda m: m.tensor(5), lambda m: m.tensor(0.0), lambda m: X(m) % 3 == 0, lambda m: m.zeros(2, 0, 3)):
        same_value(lambda m: m.where(make(m)))
        same_value(lambda m: m.nonzero(make(m), as_tuple=True))
        same_value(lambda m: m.argwhere(make(m)))


FLOAT8_OPS = {
    "scatter": lambda m, x: m.scatter(x, 0, m.tensor([[0, 1]]), x),
    "scatter value": lambda m, x: m.scatter(x, 0, m.tensor([[0, 1]]), 1.0),
    "scatter_add": lambda m, x: m.scatter_add(x, 0, m.tensor([[0, 1]]), x),
    "scatter_reduce": lambda m, x: m.scatter_reduce(x, 0, m.tensor([[0, 1]]), x, "amax"),
    "index_add": lambda m, x: m.index_add(x, 0, m.tensor([0]), x[:1]),
    "index_copy": lambda m, x: m.index_copy(x, 0, m.tensor([0]), x[:1]),
    "index_fill": lambda m, x: m.index_fill(x, 0, m.tensor([0]), 1.0),
    "take": lambda m, x: m.take(x, m.tensor([0])),
    "put": lambda m, x: m.put(x, m.tensor([0]), x[0, :1]),
    "masked_scatter": lambda m, x: m.masked_scatter(x, m.ones(2, 2, dtype=m.bool), x),
    "masked_select": lambda m, x: m.masked_select(x, m.ones(2, 2, dtype=m.bool)),
}


@pytest.mark.parametrize("op", list(FLOAT8_OPS), ids=str)
def test_float8(op):
    # torch implements only masked_select of this family for float8; the others raise NotImplementedError
    (re_, ee), (rt, et) = both(lambda m: FLOAT8_OPS[op](m, m.ones(2, 2).to(m.float8_e4m3fn)))
    assert type(ee) is type(et), (ee, et)
    if et is None:
        assert_same(re_, rt)


def test_random_layouts_against_torch():
    """Seeded random shapes, dims, layouts (transposed, sliced, expanded index) and reductions, value for value."""
    rng = np.random.default_rng(7)
    for trial in range(60):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(s) for s in rng.integers(1, 5, ndim))
        dim = int(rng.integers(-ndim, ndim))
        index_shape = tuple(int(rng.integers(1, s + 1)) for s in shape)
        index_shape = tuple(int(rng.integers(1, 6)) if k == dim % ndim else s for k, s in enumerate(index_shape))
        idx = rng.integers(0, shape[dim], index_shape)
        src = rng.integers(-4, 5, tuple(s + int(rng.integers(0, 2)) for s in index_shape)).astype(np.float64)
        base = rng.integers(-4, 5, shape).astype(np.float64)
        transpose = ndim > 1 and trial % 2 == 0
        reduce = ["sum", "prod", "mean", "amax", "amin"][trial % 5]
        include_self = trial % 3 != 0

        def run(m, base=base, idx=idx, src=src, dim=dim, transpose=transpose, reduce=reduce, include_self=include_self):
            x = m.from_numpy(np.ascontiguousarray(np.swapaxes(base, 0, -1))).transpose(0, -1) if transpose \
                else m.from_numpy(base.copy())
            i, s = m.from_numpy(idx), m.from_numpy(src)
            return (x.scatter(dim, i, s), x.scatter_add(dim, i, s),
                    x.scatter_reduce(dim, i, s, reduce, include_self=include_self),
                    x.clone().scatter_(dim, i, 2.5))
        same_value(run)

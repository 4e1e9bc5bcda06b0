"""The matmul family against torch: every matmul case, dtypes, layouts, fused forms and errors."""
import itertools
import math

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome

TOL = {"float32": (1e-5, 1e-4), "float64": (1e-12, 1e-12), "float16": (2e-3, 2e-2), "bfloat16": (1.6e-2, 1e-1)}

SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((5, 2, 3), (3,)),
          ((3,), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)), ((2, 1, 2, 3), (5, 3, 4)), ((1, 3), (3, 1)), ((0, 3), (3, 4)),
          ((2, 0), (0, 4)), ((70, 130), (130, 90)), ((4, 33, 65), (65, 17))]


def make(m, shape, dtype, transposed=False, seed=0):
    g = torch.Generator().manual_seed(seed + len(shape))
    base = torch.randint(-3, 4, shape, generator=g).double()
    t = base.to(getattr(torch, dtype))
    e = ember.from_numpy(base.numpy().copy()).to(getattr(ember, dtype))
    x = e if m is ember else t
    if transposed and x.dim() >= 2:
        x = x.transpose(-1, -2).contiguous().transpose(-1, -2)
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16", "bfloat16"])
@pytest.mark.parametrize("sa,sb", SHAPES, ids=str)
@pytest.mark.parametrize("transposed", [False, True])
def test_matmul_matches_torch(sa, sb, dtype, transposed):
    rt, et = outcome(lambda: torch.matmul(make(torch, sa, dtype, transposed), make(torch, sb, dtype, transposed, 1)))
    re_, ee = outcome(lambda: ember.matmul(make(ember, sa, dtype, transposed), make(ember, sb, dtype, transposed, 1)))
    if et is not None:
        assert ee is not None and type(ee).__name__ == type(et).__name__, (ee, et)
        return
    assert ee is None, ee
    rtol, atol = TOL.get(dtype, (0, 0))
    assert_same(re_, rt, check_strides=False, rtol=rtol, atol=atol)


@pytest.mark.parametrize("fn", [
    lambda m, x: m.mm(x(2, 3), x(3, 4)), lambda m, x: m.bmm(x(5, 2, 3), x(5, 3, 4)), lambda m, x: m.mv(x(2, 3), x(3)),
    lambda m, x: m.dot(x(4), x(4)), lambda m, x: m.outer(x(3), x(2)), lambda m, x: x(2, 3) @ x(3, 2),
    lambda m, x: m.addmm(x(2), x(2, 3), x(3, 2)), lambda m, x: m.addmm(x(4, 2), x(4, 3), x(3, 2), beta=0.5, alpha=2),
    lambda m, x: m.addmv(x(2), x(2, 3), x(3), alpha=3), lambda m, x: m.baddbmm(x(5, 2, 4), x(5, 2, 3), x(5, 3, 4), beta=2),
    lambda m, x: x(2, 3).t().mm(x(2, 4)), lambda m, x: x(6, 8)[::2, 1::2] @ x(4, 3),
])
def test_matmul_family(fn):
    counter = iter(range(100))

    def factory(m):
        def x(*shape):
            return make(m, shape, "float32", seed=next(counter))
        return x
    rt = fn(torch, factory(torch))
    counter = iter(range(100))
    re_ = fn(ember, factory(ember))
    assert_same(re_, rt, check_strides=False, rtol=1e-5, atol=1e-4)


def test_errors():
    for code in ["m.mm(m.ones(2, 3), m.ones(4, 5))", "m.matmul(m.ones(()), m.ones(2))", "m.dot(m.ones(3), m.ones(4))",
                 "m.mv(m.ones(2, 3), m.ones(4))", "m.bmm(m.ones(2, 2, 3), m.ones(2, 4, 5))",
                 "m.mm(m.ones(2, 3), m.ones(3, 2, dtype=m.float64))", "m.matmul(m.ones(2, 3, 4), m.ones(2, 5, 6))"]:
        et, ee = outcome(lambda: eval(code, {"m": torch})), outcome(lambda: eval(code, {"m": ember}))
        assert et[1] is not None and ee[1] is not None, code
        assert type(ee[1]).__name__ == type(et[1]).__name__, (code, ee[1], et[1])
        assert str(ee[1])[:30] == str(et[1])[:30], (code, str(ee[1]), str(et[1]))


def test_matmul_split_over_threads_is_exact_every_time():
    """Large products are split over the pool and run concurrent BLAS calls: they must be reentrant
    (Debian's serial OpenBLAS was not: about 1 product in 10 came out wrong at 128x128)."""
    rng = np.random.default_rng(3)
    for n in (128, 160):
        a_np = rng.standard_normal((n, n)).astype(np.float32)
        b_np = rng.standard_normal((n, n)).astype(np.float32)
        a, b = ember.from_numpy(a_np), ember.from_numpy(b_np)
        expected = a_np.astype(np.float64) @ b_np
        for _ in range(300):
            assert np.abs((a @ b).numpy() - expected).max() < 1e-3
    x = rng.standard_normal((6, 3, 4))
    y = rng.standard_normal((6, 4, 2))
    for _ in range(300):
        assert np.allclose(ember.from_numpy(x).bmm(ember.from_numpy(y)).numpy(), x @ y)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_zero_times_inf_is_nan_in_every_product_shape(dtype):
    # BLIS's small matrix-vector paths skip zero vector elements, dropping 0 * inf = NaN.
    for M, N, K in itertools.product([1, 2, 17], [1, 2, 17], [1, 2, 5, 300]):
        for zero_in_a in (True, False):
            a, b = torch.ones(M, K), torch.ones(K, N)
            a[0, 0], b[0, 0] = (0, -math.inf) if zero_in_a else (math.inf, 0)
            for ta, tb in [(a, b), (a.t().contiguous().t(), b), (a, b.t().contiguous().t())]:
                ta, tb = ta.to(getattr(torch, dtype)), tb.to(getattr(torch, dtype))
                got = torch.from_numpy((_ember_like(ta, dtype) @ _ember_like(tb, dtype)).float().numpy())
                assert torch.equal(got.isnan(), (ta @ tb).float().isnan()), (M, N, K, zero_in_a)


def _ember_like(t, dtype):
    """An ember copy of a 2-D torch tensor with the same (row- or column-major) layout."""
    if t.is_contiguous():
        return ember.from_numpy(t.float().numpy().copy()).to(getattr(ember, dtype))
    return ember.from_numpy(t.t().float().numpy().copy()).to(getattr(ember, dtype)).t()

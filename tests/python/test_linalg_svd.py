"""linalg.svd, linalg.svdvals and torch.svd against torch: factors, layouts, gradients (of S, U and Vh), empty
inputs and errors. Singular vectors are defined up to sign, so U and Vh are compared through what does not depend
on it (A rebuilt, U Vh, |U|) and S directly."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome

SHAPES = [(3, 4), (4, 3), (5, 5), (2, 3, 4), (2, 1, 5, 2), (1, 1), (0, 3), (3, 0), (2, 0, 3)]


def pair(shape, dtype="float64", seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return ember.from_numpy(a).to(getattr(ember, dtype)), torch.from_numpy(a).to(getattr(torch, dtype))


def to_torch(e):
    return torch.from_numpy(e.detach().numpy().copy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_svd_factors_match_torch(shape, full, dtype):
    e, t = pair(shape, dtype)
    U, S, Vh = ember.linalg.svd(e, full_matrices=full)
    tU, tS, tVh = torch.linalg.svd(t, full_matrices=full)
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert_same(S, tS, rtol=tol, atol=tol)
    for got, want in ((U, tU), (Vh, tVh)):  # shapes, dtypes and torch's column-major strides
        assert_same(got, want, check_values=False)
    k = S.shape[-1]
    rebuilt = to_torch(U)[..., :k] * to_torch(S).unsqueeze(-2) @ to_torch(Vh)[..., :k, :]
    torch.testing.assert_close(rebuilt, t, rtol=10 * tol, atol=10 * tol)
    torch.testing.assert_close(to_torch(U).abs()[..., :k], tU.abs()[..., :k], rtol=1e-3, atol=1e-3)
    eye_m = torch.eye(U.shape[-1], dtype=t.dtype)
    torch.testing.assert_close(to_torch(U).mT @ to_torch(U), eye_m.expand_as(to_torch(U).mT @ to_torch(U)),
                               rtol=10 * tol, atol=10 * tol)


def test_svd_of_a_column_major_input_leaves_it_unchanged():
    e, t = pair((4, 3))
    e = e.mT.contiguous().mT  # LAPACK's own layout: must be copied, not overwritten
    before = e.clone()
    ember.linalg.svd(e)
    assert e.equal(before)


@pytest.mark.parametrize("fn", [
    lambda m, a: m.linalg.svdvals(a),
    lambda m, a: m.linalg.svd(a, full_matrices=False).S * 2,
    lambda m, a: (m.linalg.svd(a, full_matrices=False).U @ m.linalg.svd(a, full_matrices=False).Vh) * 1.5,
    lambda m, a: m.linalg.svd(a).U[..., :2].abs() * 3,
    lambda m, a: m.linalg.svd(a).Vh[..., :2, :].abs().sum(-1),
    lambda m, a: m.svd(a).V.abs(),
    lambda m, a: m.linalg.matrix_norm(a, "nuc"),
    lambda m, a: m.linalg.matrix_norm(a, 2, keepdim=True),
    lambda m, a: m.linalg.matrix_norm(a, -2, dim=(0, -1)),
], ids=["svdvals", "S", "polar", "absU", "absVh", "svd_V", "nuc", "two", "minus_two"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (3, 3), (2, 3, 5)], ids=str)
def test_svd_gradients_match_torch(fn, shape):
    e, t = pair(shape, seed=3)
    e.requires_grad_()
    t.requires_grad_()
    re_, rt = fn(ember, e), fn(torch, t)
    assert type(re_.grad_fn).__name__ == type(rt.grad_fn).__name__
    w = np.random.default_rng(1).standard_normal(tuple(rt.shape))
    (re_ * ember.from_numpy(w)).sum().backward()
    (rt * torch.from_numpy(w)).sum().backward()
    assert_same(e.grad, t.grad, rtol=1e-9, atol=1e-9)


def test_svd_gradcheck():
    e, _ = pair((3, 4), seed=5)
    e.requires_grad_()
    assert ember.autograd.gradcheck(lambda a: ember.linalg.svdvals(a), (e,))
    assert ember.autograd.gradcheck(lambda a: ember.linalg.svd(a, full_matrices=False).U.abs(), (e,))


@pytest.mark.parametrize("some", [True, False])
@pytest.mark.parametrize("compute_uv", [True, False])
def test_torch_svd_forms(some, compute_uv):
    e, t = pair((2, 3, 4))
    r, tr = ember.svd(e, some=some, compute_uv=compute_uv), torch.svd(t, some=some, compute_uv=compute_uv)
    assert type(r).__name__ == "svd" and r._fields == ("U", "S", "V")
    assert_same(r.S, tr.S, rtol=1e-12, atol=1e-12)
    for got, want in ((r.U, tr.U), (r.V, tr.V)):
        assert_same(got, want, check_values=compute_uv is False)
    assert_same(e.svd().S, t.svd().S, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda m: m.linalg.svd(m.tensor([[float("nan"), 1.0], [1.0, 1.0]])),
    lambda m: m.linalg.svdvals(m.tensor([[1.0, 2.0], [float("nan"), 1.0]])),
    lambda m: m.linalg.svd(m.ones(3)),
    lambda m: m.linalg.svd(m.ones(3, 3, dtype=m.int64)),
    lambda m: m.linalg.svd(m.ones(3, 3, dtype=m.float16)),
    lambda m: m.linalg.svd(m.ones(3, 3), driver="gesvd"),
    lambda m: m.linalg.matrix_norm(m.ones(3), "nuc"),
])
def test_svd_errors_match_torch(call):
    (_, ee), (_, et) = outcome(lambda: call(ember)), outcome(lambda: call(torch))
    assert et is not None and ee is not None
    assert type(ee).__name__ == type(et).__name__ and str(ee) == str(et), (ee, et)
    assert isinstance(ee, RuntimeError) == isinstance(et, RuntimeError)


def test_linalg_error_is_a_runtime_error():
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)
    with pytest.raises(ember.linalg.LinAlgError, match="non-finite"):
        ember.linalg.svd(ember.tensor([[float("nan")]]))


def test_inf_input_gives_nan_as_torch():
    e = ember.linalg.svdvals(ember.tensor([[1.0, float("inf")], [0.0, 1.0]]))
    t = torch.linalg.svdvals(torch.tensor([[1.0, float("inf")], [0.0, 1.0]]))
    assert_same(e, t)


@pytest.mark.parametrize("call", [
    lambda m, x: m.sort(x, 0, stable=True), lambda m, x: m.sort(x, 0, stable=None), lambda m, x: x.sort(0, stable=True),
    lambda m, x: m.argsort(x, 0, stable=True), lambda m, x: x.argsort(0, stable=True),
    lambda m, x: m.sort(x, stable=True, dim=0), lambda m, x: x.sort(stable=False), lambda m, x: m.sort(x, 0, True),
    lambda m, x: m.argsort(x, stable=True, descending=True),
    lambda m, x: m.nonzero(x, out=m.empty(0, dtype=m.int64)), lambda m, x: m.nonzero(x, out=m.empty(0, dtype=m.int32)),
    lambda m, x: m.nonzero(x, as_tuple=True, out=m.empty(0, dtype=m.int64)),
])
def test_sort_signatures_and_nonzero_out_as_torch(call):
    x = [3.0, 1.0, 0.0, 2.0, 1.0]
    (re_, ee), (rt, et) = outcome(lambda: call(ember, ember.tensor(x))), outcome(lambda: call(torch, torch.tensor(x)))
    assert type(ee) is type(et), (ee, et)
    if et is None:
        for got, want in zip(re_ if isinstance(re_, tuple) else (re_,), rt if isinstance(rt, tuple) else (rt,)):
            assert_same(got, want)
    elif isinstance(et, RuntimeError):
        assert str(ee) == str(et)

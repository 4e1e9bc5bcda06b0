"""Math ops against torch where the op database cannot say it: number-first forms, messages of errors, warnings,
node names, out= rules, tensordot's dims forms and the pow/div/copysign forms."""
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome

RNG = np.random.default_rng(0)


def pair(shape, low=-3.0, high=3.0, dtype="float64"):
    a = RNG.uniform(low, high, shape)
    return ember.from_numpy(a).to(getattr(ember, dtype)), torch.from_numpy(a).to(getattr(torch, dtype))


def same_outcome(fe, ft, check_message=True, **kw):
    (re_, ee), (rt, et) = outcome(fe), outcome(ft)
    if et is not None or ee is not None:
        assert type(ee) is type(et), (ee, et)
        if check_message:
            assert str(ee) == str(et)
        return
    assert_same(re_, rt, **kw)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"])
def test_number_first_forms(dtype):
    e, t = pair((3, 4), 0.1, 3.0, dtype)
    tol = {"float16": 1e-3, "bfloat16": 1e-2}.get(dtype, 1e-6)
    for s in (2, 2.5, -1, 0, True):
        same_outcome(lambda: ember.xlogy(s, e), lambda: torch.xlogy(s, t), rtol=tol, atol=tol)
        same_outcome(lambda: ember.pow(s, e), lambda: torch.pow(s, t), check_message=False, rtol=tol, atol=tol)
        same_outcome(lambda: s ** e, lambda: s ** t, check_message=False, rtol=tol, atol=tol)
        same_outcome(lambda: ember.xlogy(e, s), lambda: torch.xlogy(t, s), rtol=tol, atol=tol)


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int64", "float16", "bfloat16", "float32", "float64"])
def test_div_rounding_modes_and_copysign(mode, dtype):
    (e, t), (e2, t2) = pair((3, 4), dtype=dtype), pair((3, 4), 0.5, 3.0, dtype)
    tol = {"float16": 1e-3, "bfloat16": 1e-2}.get(dtype, 1e-6)
    same_outcome(lambda: ember.div(e, e2, rounding_mode=mode), lambda: torch.div(t, t2, rounding_mode=mode), rtol=tol, atol=tol)
    same_outcome(lambda: ember.div(e, -2, rounding_mode=mode), lambda: torch.div(t, -2, rounding_mode=mode), rtol=tol, atol=tol)
    same_outcome(lambda: e.div(e2, rounding_mode=mode), lambda: t.div(t2, rounding_mode=mode), rtol=tol, atol=tol)
    same_outcome(lambda: ember.copysign(e, -e2), lambda: torch.copysign(t, -t2), rtol=tol, atol=tol)
    same_outcome(lambda: ember.copysign(e, -1.5), lambda: torch.copysign(t, -1.5), rtol=tol, atol=tol)


def test_pow_forms_dtypes():
    dtypes = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]
    for da in dtypes:
        for db in dtypes:
            (e, t), (e2, t2) = pair((3, 4), 0.2, 3.0, da), pair((3, 4), 0.0, 3.0, db)
            same_outcome(lambda: e ** e2, lambda: t ** t2, check_message=False, rtol=1e-2, atol=1e-2)


def test_node_names():
    e, t = pair((3, 4), 0.1, 0.9)
    e2, t2 = pair((3, 4), 0.1, 0.9)
    for x in (e, t, e2, t2):
        x.requires_grad_()
    calls = [
        lambda m, a, b: m.hypot(a, b), lambda m, a, b: m.xlogy(a, b), lambda m, a, b: m.xlogy(a, 2.0),
        lambda m, a, b: m.xlogy(2.0, b), lambda m, a, b: m.logit(a), lambda m, a, b: m.logit(a, 0.2),
        lambda m, a, b: m.nansum(a), lambda m, a, b: m.nanmean(a, 1), lambda m, a, b: m.logcumsumexp(a, 1),
        lambda m, a, b: m.diff(a), lambda m, a, b: m.kron(a, b), lambda m, a, b: m.tensordot(a, b.t(), 1),
        lambda m, a, b: m.dist(a, b), lambda m, a, b: m.cdist(a, b), lambda m, a, b: m.linalg.vector_norm(a),
        lambda m, a, b: m.linalg.matrix_norm(a, 1), lambda m, a, b: m.linalg.norm(a), lambda m, a, b: m.pow(2, a),
        lambda m, a, b: m.linalg.cross(a[:, :3], b[:, :3]),
    ]
    for call in calls:
        assert call(ember, e, e2).grad_fn.name() == call(torch, t, t2).grad_fn.name()
    assert ember.signbit(e).grad_fn is None and not ember.signbit(e).requires_grad


def test_errors_name_arguments():
    e, t = pair((3, 4))
    ei, ti = pair((3, 4), dtype="int64")
    cases = [
        (lambda m, a, ai: m.hypot(ai, ai)), (lambda m, a, ai: m.hypot(a, 2)),
        (lambda m, a, ai: m.logcumsumexp(ai, 0)), (lambda m, a, ai: m.nanmean(ai)),
        (lambda m, a, ai: m.diff(a, -1)), (lambda m, a, ai: m.diff(a[0, 0])),
        (lambda m, a, ai: m.diff(a, prepend=a[0])), (lambda m, a, ai: m.diff(a, 1, 0, a[:, :2])),
        (lambda m, a, ai: m.cross(a[:2], a[:2])), (lambda m, a, ai: m.linalg.cross(a, a)),
        (lambda m, a, ai: m.tensordot(a, a, 3)), (lambda m, a, ai: m.tensordot(a, a, -1)),
        (lambda m, a, ai: m.tensordot(a, a, ([0], [0, 1]))), (lambda m, a, ai: m.tensordot(a, ai, 1)),
        (lambda m, a, ai: m.tensordot(a, a, ([0], [1]))),
        (lambda m, a, ai: m.cdist(a, a[:, :2])), (lambda m, a, ai: m.cdist(a[0], a)), (lambda m, a, ai: m.cdist(ai, ai)),
        (lambda m, a, ai: m.cdist(a, a, compute_mode="fast")), (lambda m, a, ai: m.cdist(a, a, -1.0)),
        (lambda m, a, ai: m.dist(ai, ai)), (lambda m, a, ai: m.linalg.vector_norm(ai)),
        (lambda m, a, ai: m.linalg.matrix_norm(a[0])), (lambda m, a, ai: m.linalg.matrix_norm(a, dim=(0,))),
        (lambda m, a, ai: m.linalg.norm(a, dim=(0, 1, 1))), (lambda m, a, ai: m.linalg.norm(a[None], 2)),
        (lambda m, a, ai: m.logit(ai, out=m.empty(0, dtype=m.int64))), (lambda m, a, ai: m.signbit(a, out=m.empty(0))),
        (lambda m, a, ai: m.xlogy(ai, ai, out=m.empty(0, dtype=m.int64))),
    ]
    for case in cases:
        same_outcome(lambda: case(ember, e, ei), lambda: case(torch, t, ti))


def test_out_with_grad_is_refused():
    e, t = pair((3, 4))
    e.requires_grad_()
    t.requires_grad_()
    for call in (lambda m, a: m.logit(a, out=m.empty(0, dtype=a.dtype)), lambda m, a: m.kron(a, a, out=m.empty(0, dtype=a.dtype)),
                 lambda m, a: m.linalg.vector_norm(a, out=m.empty(0, dtype=a.dtype))):
        (_, ee), (_, et) = outcome(lambda: call(ember, e)), outcome(lambda: call(torch, t))
        assert type(ee) is type(et) is RuntimeError


def test_cross_without_dim_warns_and_takes_the_first_dim_of_size_3():
    e, t = pair((3, 4))
    e2, t2 = pair((3, 4))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = ember.cross(e, e2)
    assert_same(got, torch.cross(t, t2, dim=0), rtol=1e-12, atol=1e-12)
    assert len(caught) <= 1  # once per process, as torch


def test_tensordot_dims_forms():
    e, t = pair((2, 3, 4))
    e2, t2 = pair((3, 4, 5))
    for dims in (2, [[1, 2], [0, 1]], ([1], [0]), torch.tensor(2), torch.tensor([[2], [1]])):
        edims = ember.tensor(dims.tolist()) if isinstance(dims, torch.Tensor) else dims
        assert_same(ember.tensordot(e, e2, edims), torch.tensordot(t, t2, dims), rtol=1e-12, atol=1e-12)
    (_, ee), (_, et) = outcome(lambda: ember.tensordot(e, e2, (1, 0))), outcome(lambda: torch.tensordot(t, t2, (1, 0)))
    assert type(ee) is type(et) is TypeError
    out_e, out_t = ember.empty(0, dtype=ember.float64), torch.empty(0, dtype=torch.float64)
    assert ember.tensordot(e, e2, 2, out=out_e) is out_e
    assert_same(out_e, torch.tensordot(t, t2, 2, out=out_t), rtol=1e-12, atol=1e-12)
    same_outcome(lambda: ember.tensordot(e, e2, 2, out=ember.empty(0)), lambda: torch.tensordot(t, t2, 2, out=torch.empty(0)))


def test_logcumsumexp_is_stable_and_matches_gradients():
    a = np.array([[-1000.0, -999.0, 0.0, 1000.0, -np.inf], [np.inf, 1.0, -np.inf, 2.0, 3.0]])
    e, t = ember.from_numpy(a), torch.from_numpy(a)
    assert_same(ember.logcumsumexp(e, 1), torch.logcumsumexp(t, 1), rtol=1e-12, atol=1e-12)
    e, t = pair((4, 7))
    e.requires_grad_()
    t.requires_grad_()
    g = RNG.uniform(-1, 1, (4, 7))
    ember.logcumsumexp(e, 1).backward(ember.from_numpy(g))
    torch.logcumsumexp(t, 1).backward(torch.from_numpy(g))
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_cdist_paths_and_gradients():
    for shapes, kw in [(((30, 3), (40, 3)), {}), (((4, 3), (5, 3)), {"p": 1.0}), (((2, 4, 3), (5, 3)), {"p": 3.0}),
                       (((4, 3), (5, 3)), {"compute_mode": "use_mm_for_euclid_dist"})]:
        (e1, t1), (e2, t2) = pair(shapes[0]), pair(shapes[1])
        for x in (e1, t1, e2, t2):
            x.requires_grad_()
        re_, rt = ember.cdist(e1, e2, **kw), torch.cdist(t1, t2, **kw)
        assert_same(re_.detach(), rt.detach(), rtol=1e-9, atol=1e-9)
        assert re_.grad_fn.name() == rt.grad_fn.name()
        g = RNG.uniform(-1, 1, tuple(rt.shape))
        re_.backward(ember.from_numpy(g))
        rt.backward(torch.from_numpy(g))
        np.testing.assert_allclose(e1.grad.numpy(), t1.grad.numpy(), rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(e2.grad.numpy(), t2.grad.numpy(), rtol=1e-8, atol=1e-10)

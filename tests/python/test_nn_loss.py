"""nn losses (issue 11) beyond the op database: torch's errors and messages (bad targets never read out of bounds),
warnings, legacy size_average/reduce, node names (cross_entropy's LogSoftmaxBackward0 under NllLossBackward0 and its
fused backward), ignore_index and reductions on larger inputs, double backward."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from conftest import assert_same, outcome


def pair(a, requires_grad=False):
    t, e = torch.from_numpy(np.array(a)), ember.from_numpy(np.array(a))
    return (e.requires_grad_(), t.requires_grad_()) if requires_grad else (e, t)


def rand(shape, seed=0, low=-3, high=3):
    return np.random.default_rng(seed).uniform(low, high, shape)


def classes(shape, n, seed=1):
    return np.random.default_rng(seed).integers(0, n, shape)


def both(call):
    """call(F, lib) in torch and ember: (ember result, torch result) or matching exceptions (asserted)."""
    rt, et = outcome(lambda: call(TF, torch))
    re_, ee = outcome(lambda: call(EF, ember))
    assert (et is None) == (ee is None), (ee, et)
    if et is not None:
        assert type(ee) is type(et) and str(ee) == str(et), (ee, et)
    return re_, rt


X = rand((4, 5))
ERRORS = [
    lambda F, m: F.cross_entropy(m.tensor(X), m.tensor([0, 7, 1, 1])),
    lambda F, m: F.cross_entropy(m.tensor(X), m.tensor([0, -1, 1, 1])),
    lambda F, m: F.nll_loss(m.tensor(X), m.tensor([0, 5, 1, 1]), reduction="none"),
    lambda F, m: F.nll_loss(m.zeros(2, 5, 3, 3), m.full((2, 3, 3), 7)),
    lambda F, m: F.nll_loss(m.zeros(2, 5, 3), m.full((2, 3), -3)),
    lambda F, m: F.nll_loss(m.tensor(X), m.tensor([0, 1, 1])),
    lambda F, m: F.nll_loss(m.tensor(X), m.tensor([0.0, 1, 1, 1])),
    lambda F, m: F.nll_loss(m.tensor(X), m.tensor([0, 1, 1, 1], dtype=m.int32)),
    lambda F, m: F.cross_entropy(m.tensor(X), m.rand(4, 4)),
    lambda F, m: F.nll_loss(m.tensor(X), m.tensor([0, 1, 1, 1]), weight=m.ones(3)),
    lambda F, m: F.nll_loss(m.tensor(X), m.tensor([0, 1, 1, 1]), weight=m.ones(5, dtype=m.float32)),
    lambda F, m: F.nll_loss(m.tensor(X), m.tensor([[0, 1], [1, 1]])),
    lambda F, m: F.nll_loss(m.zeros(2, 5, 3, 3), m.zeros(2, 3, 4, dtype=m.int64)),
    lambda F, m: F.nll_loss(m.zeros(2, 5, 3, 3), m.zeros(2, 3, dtype=m.int64)),
    lambda F, m: F.nll_loss(m.zeros(2, 5, 3, 3), m.zeros(2, 3, 3, dtype=m.int64), weight=m.ones(3)),
    lambda F, m: F.nll_loss(m.zeros(2, 5, 3), m.zeros(2, 4, dtype=m.int64)),
    lambda F, m: F.nll_loss(m.zeros(5), m.tensor([2, 3])),
    lambda F, m: F.nll_loss(m.tensor(1.0), m.tensor(0)),
    lambda F, m: F.nll_loss(m.tensor(X).long(), m.tensor([0, 1, 1, 1])),
    lambda F, m: F.nll_loss(m.tensor(X), m.tensor([0, 1, 1, 1]), reduction="avg"),
    lambda F, m: F.cross_entropy(m.tensor(X), m.tensor([0, 1, 1, 1]), label_smoothing=1.5),
    lambda F, m: F.cross_entropy(m.tensor(X), m.rand(4, 5).long()),
    lambda F, m: F.cross_entropy(m.tensor(X), m.rand(4, 5), ignore_index=1),
    lambda F, m: F.cross_entropy(m.tensor(X).long(), m.tensor([0, 1, 1, 1])),
    lambda F, m: F.mse_loss(m.ones(3, 2), m.ones(3)),
    lambda F, m: F.mse_loss(m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64)),
    lambda F, m: F.l1_loss(m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64)),
    lambda F, m: F.smooth_l1_loss(m.ones(3), m.ones(3), beta=-1.0),
    lambda F, m: F.huber_loss(m.ones(3), m.ones(3), delta=0.0),
    lambda F, m: F.binary_cross_entropy(m.tensor([1.5]), m.tensor([1.0])),
    lambda F, m: F.binary_cross_entropy(m.rand(3), m.rand(3, 1)),
    lambda F, m: F.binary_cross_entropy(m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64)),
    lambda F, m: F.binary_cross_entropy_with_logits(m.rand(3), m.rand(4)),
    lambda F, m: F.binary_cross_entropy_with_logits(m.rand(3), m.rand(3), pos_weight=m.ones(3, requires_grad=True)),
    lambda F, m: F.binary_cross_entropy(m.rand(3), m.rand(3), weight=m.ones(3, requires_grad=True)),
    lambda F, m: F.nll_loss(m.tensor(X), m.tensor([0, 1, 1, 1]), weight=m.ones(5, dtype=m.float64, requires_grad=True)),
    lambda F, m: F.soft_margin_loss(m.rand(3), m.rand(3, requires_grad=True)),
    lambda F, m: F.kl_div(m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64)),
    lambda F, m: F.gaussian_nll_loss(m.ones(4, 5), m.ones(4, 5), -m.ones(4, 5)),
    lambda F, m: F.gaussian_nll_loss(m.ones(4, 5), m.ones(4, 5), m.ones(4, 3)),
    lambda F, m: F.gaussian_nll_loss(m.ones(4, 5), m.ones(4, 5), -1.0),
    lambda F, m: F.gaussian_nll_loss(m.ones(4, 5), m.ones(4, 5), m.ones(4, 5), reduction="avg"),
    lambda F, m: F.margin_ranking_loss(m.ones(3), m.ones(3, 1), m.ones(3)),
    lambda F, m: F.triplet_margin_loss(m.ones(3, 2), m.ones(3, 2), m.ones(3, 2), margin=0.0),
    lambda F, m: F.triplet_margin_loss(m.ones(3, 2), m.ones(3), m.ones(3, 2)),
    lambda F, m: F.cosine_embedding_loss(m.ones(3, 2), m.ones(3, 2), m.ones(3, 1)),
    lambda F, m: F.cosine_embedding_loss(m.ones(3, 2), m.ones(3, 2), m.ones(())),
    lambda F, m: F.multi_margin_loss(m.tensor(X), m.tensor([0, 2, 5, 1])),
    lambda F, m: F.multi_margin_loss(m.tensor(X), m.tensor([0, 2, 4, 1]), p=3),
    lambda F, m: F.multi_margin_loss(m.tensor(X), m.tensor([0, 2, 4])),
    lambda F, m: F.multi_margin_loss(m.tensor(X), m.tensor([0, 2, 4, 1]), weight=m.ones(4, dtype=m.float64)),
    lambda F, m: F.multi_margin_loss(m.tensor(X).long(), m.tensor([0, 2, 4, 1])),
    lambda F, m: F.multi_margin_loss(m.zeros(2, 3, 4), m.zeros(2, dtype=m.int64)),
    lambda F, m: F.multi_margin_loss(m.tensor(X), m.tensor([0.0, 2, 4, 1])),
]


@pytest.mark.parametrize("call", ERRORS, ids=range(len(ERRORS)))
def test_errors_match_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, et = outcome(lambda: call(TF, torch))
        _, ee = outcome(lambda: call(EF, ember))
    assert et is not None
    assert type(ee) is type(et) and str(ee) == str(et), (ee, et)


WARNS = [
    lambda F, m: F.mse_loss(m.ones(3, 1), m.ones(3)),
    lambda F, m: F.l1_loss(m.ones(3, 1), m.ones(3)),
    lambda F, m: F.smooth_l1_loss(m.ones(3, 1), m.ones(3)),
    lambda F, m: F.huber_loss(m.ones(3, 1), m.ones(3)),
    lambda F, m: F.kl_div(m.ones(3), m.ones(3)),
    lambda F, m: F.nll_loss(m.ones(3, 2), m.zeros(3, dtype=m.int64), size_average=False),
    lambda F, m: F.cross_entropy(m.ones(3, 2), m.zeros(3, dtype=m.int64), reduce=False),
    lambda F, m: F.mse_loss(m.ones(3), m.ones(3), size_average=True, reduce=True),
    lambda F, m: F.nll_loss(m.ones(3, 2), m.zeros(3, dtype=m.int64), reduction="elementwise_mean"),
]


@pytest.mark.parametrize("call", WARNS, ids=range(len(WARNS)))
def test_warnings_and_legacy_arguments(call):
    messages, results = [], []
    for F, m in ((TF, torch), (EF, ember)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            results.append(call(F, m))
        messages.append([str(x.message) for x in w])
    assert messages[0] == messages[1]
    assert_same(results[1], results[0], check_strides=False, rtol=1e-6)


def test_cross_entropy_graph_is_torchs():
    for n, c in ((4, 5), (3, 7)):
        (e, t), (et, tt) = pair(rand((n, c)), True), pair(classes((n,), c))
        ye, yt = EF.cross_entropy(e, et), TF.cross_entropy(t, tt)
        for fe, ft in ((ye.grad_fn, yt.grad_fn), (ye.grad_fn.next_functions[0][0], yt.grad_fn.next_functions[0][0])):
            assert fe.name() == type(ft).__name__
        assert ye.grad_fn.name() == "NllLossBackward0"
        assert ye.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_fused_matches_torch(dtype, reduction, weighted):
    """The fused path (2-D float logits): values and gradients, with weights, ignore_index and a large row."""
    for n, c in ((64, 10), (8, 3000)):
        a = rand((n, c), seed=n).astype(dtype)
        cl = classes((n,), c)
        cl[::5] = 2
        (e, t), (et, tt) = pair(a, True), pair(cl)
        w = rand((c,), seed=2, low=0.1, high=2).astype(dtype) if weighted else None
        kw = {"reduction": reduction, "ignore_index": 2}
        ye = EF.cross_entropy(e, et, weight=None if w is None else ember.from_numpy(w), **kw)
        yt = TF.cross_entropy(t, tt, weight=None if w is None else torch.from_numpy(w), **kw)
        tol = 1e-5 if dtype == "float32" else 1e-12
        assert_same(ye.detach(), yt.detach(), check_strides=False, rtol=tol, atol=tol)
        g = np.linspace(-1, 1, max(ye.numel(), 1)).reshape(tuple(yt.shape)).astype(dtype)
        ye.backward(ember.from_numpy(g)), yt.backward(torch.from_numpy(g))
        assert_same(e.grad, t.grad, rtol=tol, atol=tol)


def test_cross_entropy_all_ignored_and_empty():
    for a, c in ((rand((3, 4)), [-100, -100, -100]), (np.zeros((0, 4)), np.zeros(0, dtype=np.int64))):
        (e, t), (et, tt) = pair(a, True), pair(c)
        re_, rt = EF.cross_entropy(e, et), TF.cross_entropy(t, tt)
        assert_same(re_.detach(), rt.detach())
        re_.backward(), rt.backward()
        assert_same(e.grad, t.grad)


def test_cross_entropy_double_backward():
    (e, t), (et, tt) = pair(rand((4, 6)), True), pair(classes((4,), 6))
    (ge,), (gt,) = (ember.autograd.grad(EF.cross_entropy(e, et), e, create_graph=True),
                    torch.autograd.grad(TF.cross_entropy(t, tt), t, create_graph=True))
    assert_same(ge.detach(), gt.detach(), rtol=1e-12, atol=1e-15)
    (hge,), (hgt,) = ember.autograd.grad(ge.pow(2).sum(), e), torch.autograd.grad(gt.pow(2).sum(), t)
    assert_same(hge, hgt, rtol=1e-10, atol=1e-13)


def test_cross_entropy_retain_graph_twice():
    (e, t), (et, tt) = pair(rand((4, 6)), True), pair(classes((4,), 6))
    ye, yt = EF.cross_entropy(e, et), TF.cross_entropy(t, tt)
    for _ in range(2):
        ye.backward(retain_graph=True), yt.backward(retain_graph=True)
    assert_same(e.grad, t.grad, rtol=1e-12, atol=1e-15)


NODES = [
    ("mse_loss", lambda F, x, y: F.mse_loss(x, y)), ("l1_loss", lambda F, x, y: F.l1_loss(x, y)),
    ("smooth_l1_loss", lambda F, x, y: F.smooth_l1_loss(x, y)), ("huber_loss", lambda F, x, y: F.huber_loss(x, y)),
    ("bce", lambda F, x, y: F.binary_cross_entropy(x.sigmoid(), y.sigmoid())),
    ("bce_logits", lambda F, x, y: F.binary_cross_entropy_with_logits(x, y.sigmoid())),
    ("soft_margin", lambda F, x, y: F.soft_margin_loss(x, y.detach().sign())),
    ("kl_div", lambda F, x, y: F.kl_div(x, y, reduction="batchmean", log_target=True)),
    ("nll_2d", lambda F, x, y: F.nll_loss(x.view(1, 4, 5, 1), (y.detach().abs() * 1.2).long().clamp(0, 3)[:1].view(1, 5, 1))),
    ("margin_ranking", lambda F, x, y: F.margin_ranking_loss(x[0], y[0], y[1].detach().sign())),
    ("hinge", lambda F, x, y: F.hinge_embedding_loss(x, y.detach().sign())),
]


@pytest.mark.parametrize("call", [c[1] for c in NODES], ids=[c[0] for c in NODES])
def test_node_names_and_gradients(call):
    (ex, tx), (ey, ty) = pair(rand((4, 5)), True), pair(rand((4, 5), seed=1), True)
    re_, rt = call(EF, ex, ey), call(TF, tx, ty)
    assert re_.grad_fn.name() == type(rt.grad_fn).__name__
    re_.sum().backward(), rt.sum().backward()
    for e, t in ((ex, tx), (ey, ty)):
        assert (e.grad is None) == (t.grad is None)
        if t.grad is not None:
            assert_same(e.grad, t.grad, rtol=1e-10, atol=1e-12)

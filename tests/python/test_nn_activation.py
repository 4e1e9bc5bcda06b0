"""nn activations (issue 11) beyond the op database: inplace=True and the F.*_ / torch.*_ functions (aliasing,
version counters, node names), torch's errors and messages, softmax's dim=None, rrelu's random stream."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from conftest import assert_same, outcome


def pair(shape=(3, 4), seed=0, requires_grad=False):
    a = np.random.default_rng(seed).uniform(-3, 3, shape)
    t, e = torch.from_numpy(a.copy()), ember.from_numpy(a.copy())
    return (e.requires_grad_(), t.requires_grad_()) if requires_grad else (e, t)


INPLACE = [  # (name, call(F, x) with inplace=True, torch's node name)
    ("relu", lambda F, x: F.relu(x, inplace=True), "ReluBackward0"),
    ("relu6", lambda F, x: F.relu6(x, inplace=True), "HardtanhBackward0"),
    ("leaky_relu", lambda F, x: F.leaky_relu(x, 0.2, inplace=True), "LeakyReluBackward1"),
    ("elu", lambda F, x: F.elu(x, 0.5, inplace=True), "EluBackward1"),
    ("selu", lambda F, x: F.selu(x, inplace=True), "EluBackward1"),
    ("celu", lambda F, x: F.celu(x, 2.0, inplace=True), "CeluBackward1"),
    ("hardtanh", lambda F, x: F.hardtanh(x, -0.5, 2.0, inplace=True), "HardtanhBackward0"),
    ("threshold", lambda F, x: F.threshold(x, 0.5, -1.0, inplace=True), "ThresholdBackward1"),
    ("silu", lambda F, x: F.silu(x, inplace=True), "SiluBackward0"),
    ("mish", lambda F, x: F.mish(x, inplace=True), "MishBackward0"),
    ("hardswish", lambda F, x: F.hardswish(x, inplace=True), "HardswishBackward0"),
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x, inplace=True), "HardsigmoidBackward0"),
    ("rrelu_eval", lambda F, x: F.rrelu(x, inplace=True), "RreluWithNoiseBackward1"),
    ("F.relu_", lambda F, x: F.relu_(x), "ReluBackward0"),
    ("F.leaky_relu_", lambda F, x: F.leaky_relu_(x, 0.1), "LeakyReluBackward1"),
    ("F.elu_", lambda F, x: F.elu_(x), "EluBackward1"),
    ("F.selu_", lambda F, x: F.selu_(x), "EluBackward1"),
    ("F.celu_", lambda F, x: F.celu_(x), "CeluBackward1"),
    ("F.hardtanh_", lambda F, x: F.hardtanh_(x, -1.0, 0.5), "HardtanhBackward0"),
    ("F.threshold_", lambda F, x: F.threshold_(x, 0.0, 3.0), "ThresholdBackward1"),
    ("F.rrelu_", lambda F, x: F.rrelu_(x), "RreluWithNoiseBackward1"),
]


@pytest.mark.parametrize("name,call,node", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_values_aliasing_and_gradient(name, call, node):
    for F, lib in ((EF, ember), (TF, torch)):
        assert call(F, lib.zeros(2)) is not None
    (e, t), (eg, tg) = pair(), pair(seed=1)
    re_, rt = call(EF, e), call(TF, t)
    assert re_ is e and rt is t
    assert_same(e, t, rtol=1e-15, atol=1e-15)
    # through the graph: a non-leaf written in place takes torch's node; gradients match
    (el, tl) = pair(requires_grad=True)
    ey, ty = el * 1, tl * 1
    call(EF, ey), call(TF, ty)
    assert ey.grad_fn.name() == type(ty.grad_fn).__name__ == node
    ey.backward(eg), ty.backward(tg)
    assert_same(el.grad, tl.grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call", [c[1] for c in INPLACE], ids=[c[0] for c in INPLACE])
def test_inplace_on_a_leaf_that_requires_grad_raises(call):
    (e, t) = pair(requires_grad=True)
    _, et = outcome(lambda: call(TF, t))
    _, ee = outcome(lambda: call(EF, e))
    assert type(ee) is type(et) and str(ee) == str(et), (ee, et)


def test_torch_level_forms():
    e, t = pair()
    for name, args in [("relu_", ()), ("selu_", ()), ("celu_", (1.5,)), ("threshold_", (0.1, 2.0)), ("rrelu_", ())]:
        ec, tc = e.clone(), t.clone()
        assert getattr(ember, name)(ec, *args) is ec and getattr(torch, name)(tc, *args) is tc
        assert_same(ec, tc, rtol=1e-15, atol=1e-15)
    for name, args in [("selu", ()), ("celu", (0.5,)), ("threshold", (0.1, 2.0)), ("hardshrink", (0.7,)),
                       ("rrelu", ()), ("prelu", None)]:
        args = (ember.tensor([0.25], dtype=ember.float64),) if args is None else args
        targs = tuple(torch.from_numpy(a.numpy()) if isinstance(a, ember.Tensor) else a for a in args)
        assert_same(getattr(ember, name)(e, *args), getattr(torch, name)(t, *targs), rtol=1e-15, atol=1e-15)
    assert_same(e.hardshrink(1.0), t.hardshrink(1.0))
    assert_same(e.prelu(ember.tensor([0.5] * 4, dtype=ember.float64)), t.prelu(torch.tensor([0.5] * 4, dtype=torch.float64)))


ERRORS = [
    lambda F, m: F.softshrink(m.ones(3), -1.0),
    lambda F, m: F.softshrink(m.ones(3, dtype=m.float64), -0.5),
    lambda F, m: F.hardtanh(m.ones(3), 2.0, 1.0),
    lambda F, m: F.hardtanh(m.ones(3, dtype=m.uint8), -1.0, 1.0),
    lambda F, m: F.hardtanh(m.ones(3, dtype=m.bool)),
    lambda F, m: F.relu(m.ones(3, dtype=m.bool)),
    lambda F, m: F.glu(m.tensor(1.0)),
    lambda F, m: F.glu(m.ones(2, 5), 1),
    lambda F, m: F.glu(m.ones(2, 4, dtype=m.int64)),
    lambda F, m: F.prelu(m.ones(2, 4), m.ones(3)),
    lambda F, m: F.prelu(m.ones(2, 4), m.ones(2, 2)),
    lambda F, m: F.prelu(m.ones(4), m.ones(4)),
    lambda F, m: F.rrelu(m.ones(3), 0.5, 0.1, training=True),
    lambda F, m: F.rrelu(m.ones(3, dtype=m.float16), training=True),
    lambda F, m: F.celu(m.ones(3), 0.0),
    lambda F, m: F.elu(m.ones(3, dtype=m.int64), inplace=True),
    lambda F, m: F.leaky_relu(m.ones(3, dtype=m.int32)),
    lambda F, m: F.threshold(m.ones(3, dtype=m.uint8), 0.5, -2.0),
    lambda F, m: F.gelu(m.ones(3), approximate="fast"),
    lambda F, m: F.mish(m.ones(3, dtype=m.bool)),
    lambda F, m: F.logsigmoid(m.ones(3, dtype=m.int64)),
]


@pytest.mark.parametrize("call", ERRORS, ids=range(len(ERRORS)))
def test_errors_match_torch(call):
    _, et = outcome(lambda: call(TF, torch))
    _, ee = outcome(lambda: call(EF, ember))
    assert et is not None
    assert type(ee) is type(et) and str(ee) == str(et), (ee, et)


@pytest.mark.parametrize("slope_call", [lambda F, x: F.leaky_relu(x, -0.1, inplace=True),
                                        lambda F, x: F.elu(x, -1.0, inplace=True)], ids=["leaky_relu", "elu"])
def test_inplace_negative_slope_backward_raises(slope_call):
    errors = []
    for F, lib in ((TF, torch), (EF, ember)):
        x = lib.ones(3, requires_grad=True) * 1
        y = slope_call(F, x)
        _, err = outcome(lambda: y.sum().backward())
        errors.append(err)
    assert type(errors[0]) is type(errors[1]) and str(errors[0]) == str(errors[1])


@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 3, 4), (2, 3, 4, 5)])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "softmin"])
def test_softmax_implicit_dim_warns_and_picks_torchs_dim(shape, fn):
    e, t = pair(shape)
    with warnings.catch_warnings(record=True) as we:
        warnings.simplefilter("always")
        re_ = getattr(EF, fn)(e)
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        rt = getattr(TF, fn)(t)
    assert [str(w.message) for w in we] == [str(w.message) for w in wt]
    assert_same(re_, rt, check_strides=False, rtol=1e-12, atol=1e-15)
    assert_same(getattr(EF, fn)(e.float(), -1, dtype=ember.float64), getattr(TF, fn)(t.float(), -1, dtype=torch.float64),
                check_strides=False, rtol=1e-12, atol=1e-15)


def test_rrelu_training_draws_torchs_stream():
    e, t = pair((64,), requires_grad=True)
    ember.manual_seed(11), torch.manual_seed(11)
    re_, rt = EF.rrelu(e, 0.1, 0.4, training=True), TF.rrelu(t, 0.1, 0.4, training=True)
    assert_same(re_.detach(), rt.detach(), check_strides=False, rtol=1e-15)
    assert re_.grad_fn.name() == type(rt.grad_fn).__name__ == "RreluWithNoiseBackward0"
    re_.sum().backward(), rt.sum().backward()
    assert_same(e.grad, t.grad, rtol=1e-15)
    assert_same(ember.rand(3), torch.rand(3).to(torch.float32), check_values=False)  # the streams stay in step
    assert ember.rand(5).tolist() == torch.rand(5).tolist()


@pytest.mark.parametrize("fn", ["relu", "gelu"])
def test_fused_backward_and_double_backward(fn):
    """relu/gelu backward runs one kernel pass; with create_graph it stays differentiable, as torch's."""
    (e, t) = pair((5, 7), requires_grad=True)
    ge, gt = (getattr(EF, fn)(e).pow(2).sum(), getattr(TF, fn)(t).pow(2).sum())
    (de,), (dt,) = ember.autograd.grad(ge, e, create_graph=True), torch.autograd.grad(gt, t, create_graph=True)
    assert_same(de.detach(), dt.detach(), rtol=1e-12, atol=1e-14)
    (dde,), (ddt,) = ember.autograd.grad(de.sum(), e), torch.autograd.grad(dt.sum(), t)
    assert_same(dde, ddt, rtol=1e-10, atol=1e-12)


def test_large_activation_matches_torch_float32():
    """The vectorised loops (contiguous runs split across threads) against torch, in float32."""
    a = np.random.default_rng(3).normal(0, 3, 1 << 18).astype(np.float32)
    e, t = ember.from_numpy(a), torch.from_numpy(a)
    for name, kw in [("elu", {}), ("mish", {}), ("logsigmoid", {}), ("hardswish", {}), ("softshrink", {}),
                     ("leaky_relu", {"negative_slope": 0.3}), ("gelu", {"approximate": "tanh"})]:
        assert_same(getattr(EF, name)(e, **kw), getattr(TF, name)(t, **kw), rtol=2e-6, atol=2e-6)

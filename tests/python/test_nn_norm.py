"""nn normalisation functions against torch where the op database cannot reach: running statistics (in-place
updates, eval mode), mixed dtypes, channels-last layouts, node names, torch's own forms and errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from conftest import assert_same


def pair(t):
    return ember.from_numpy(t.detach().numpy().copy()), t.clone()


def grads_match(fe, ft, *inputs, tol=1e-5):
    """fe/ft on the same float tensors (leaves): outputs, node names and all gradients equal torch's."""
    te = [ember.from_numpy(t.numpy().copy()).requires_grad_() for t in inputs]
    tt = [t.clone().requires_grad_() for t in inputs]
    ye, yt = fe(*te), ft(*tt)
    assert_same(ye.detach(), yt.detach(), rtol=tol, atol=tol)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
    up = torch.linspace(-1, 1, yt.numel()).reshape(yt.shape).to(yt.dtype)
    ye.backward(ember.from_numpy(up.numpy().copy()))
    yt.backward(up)
    for a, b in zip(te, tt):
        assert_same(a.grad, b.grad, check_strides=False, rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("momentum", [0.1, 0.5])
@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 7), (2, 3, 4, 5), (2, 3, 2, 2, 3)])
def test_batch_norm_running_stats(shape, momentum):
    x = torch.randn(*shape)
    rm, rv = torch.randn(3), torch.rand(3) + 0.5
    (erm, trm), (erv, trv) = pair(rm), pair(rv)
    ye = EF.batch_norm(ember.from_numpy(x.numpy()), erm, erv, training=True, momentum=momentum)
    yt = TF.batch_norm(x, trm, trv, training=True, momentum=momentum)
    assert_same(ye, yt, rtol=1e-5, atol=1e-5)
    assert_same(erm, trm, rtol=1e-6, atol=1e-7)  # unbiased variance, updated in place
    assert_same(erv, trv, rtol=1e-6, atol=1e-7)
    assert erv._version == 1 and erm._version == 1


def test_batch_norm_eval_and_grads():
    x, w, b = torch.randn(4, 3, 5, 2), torch.randn(3), torch.randn(3)
    rm, rv = torch.randn(3), torch.rand(3) + 0.5
    erm, erv = ember.from_numpy(rm.numpy()), ember.from_numpy(rv.numpy())
    grads_match(lambda x, w, b: EF.batch_norm(x, erm, erv, w, b, False),
                lambda x, w, b: TF.batch_norm(x, rm, rv, w, b, False), x, w, b)
    grads_match(lambda x, w, b: EF.batch_norm(x, None, None, w, b, True),
                lambda x, w, b: TF.batch_norm(x, None, None, w, b, True), x, w, b)
    grads_match(lambda x: ember.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
                lambda x: torch.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False), x)


def test_batch_norm_double_backward():
    x = torch.randn(4, 3, 2, dtype=torch.float64)
    res = []
    for m, F in ((ember, EF), (torch, TF)):
        xl = m.from_numpy(x.numpy().copy()).requires_grad_()
        w = m.ones(3, dtype=m.float64, requires_grad=True)
        y = F.batch_norm(xl, None, None, w, None, True)
        (g,) = m.autograd.grad((y * y * y).sum(), xl, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), xl)
        res.append(gg.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-8, atol=1e-8)


def test_batch_norm_mixed_dtypes_and_layouts():
    x = torch.randn(2, 3, 4, 5)
    for dt in ("float16", "bfloat16"):
        xe, xt = ember.from_numpy(x.numpy()).to(getattr(ember, dt)), x.to(getattr(torch, dt))
        ye = EF.batch_norm(xe, ember.zeros(3), ember.ones(3), ember.ones(3), None, True)
        yt = TF.batch_norm(xt, torch.zeros(3), torch.ones(3), torch.ones(3), None, True)
        assert_same(ye, yt, rtol=2e-2, atol=2e-2)
    cl = x.to(memory_format=torch.channels_last)
    ce = ember.empty_strided(cl.shape, cl.stride()).copy_(ember.from_numpy(x.numpy()))
    assert_same(EF.batch_norm(ce, None, None, training=True), TF.batch_norm(cl, None, None, training=True),
                rtol=1e-5, atol=1e-5)
    assert_same(EF.group_norm(ce, 3), TF.group_norm(cl, 3), rtol=1e-5, atol=1e-5)


def test_instance_norm_running_stats():
    x = torch.randn(4, 3, 6)
    (erm, trm), (erv, trv) = pair(torch.zeros(3)), pair(torch.ones(3))
    ye = EF.instance_norm(ember.from_numpy(x.numpy()), erm, erv, momentum=0.3)
    yt = TF.instance_norm(x, trm, trv, momentum=0.3)
    assert_same(ye, yt, rtol=1e-5, atol=1e-5)
    assert_same(erm, trm, rtol=1e-6, atol=1e-7)
    assert_same(erv, trv, rtol=1e-6, atol=1e-7)
    grads_match(lambda x, w: EF.instance_norm(x, weight=w), lambda x, w: TF.instance_norm(x, weight=w),
                x, torch.randn(3))
    ye = EF.instance_norm(ember.from_numpy(x.numpy()), erm, erv, use_input_stats=False)
    assert_same(ye, TF.instance_norm(x, trm, trv, use_input_stats=False), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda m, F: F.batch_norm(m.randn(1, 3), None, None, training=True),
    lambda m, F: F.batch_norm(m.randn(3), None, None, training=True),
    lambda m, F: F.batch_norm(m.randn(2, 3), None, None, training=False),
    lambda m, F: F.batch_norm(m.randn(2, 3), m.zeros(3), m.ones(4)),
    lambda m, F: F.batch_norm(m.randn(2, 3), None, None, None, m.ones(4), training=True),
    lambda m, F: F.batch_norm(m.randn(2, 3).double(), m.zeros(3), m.ones(3)),
    lambda m, F: F.batch_norm(m.ones(2, 3, dtype=m.int64), None, None, training=True),
    lambda m, F: F.layer_norm(m.randn(2, 3), ()),
    lambda m, F: F.layer_norm(m.randn(2, 3), 3),
    lambda m, F: F.layer_norm(m.randn(2, 3), (2, 4)),
    lambda m, F: F.layer_norm(m.randn(2, 3), (3,), None, m.ones(4)),
    lambda m, F: F.layer_norm(m.ones(2, 3, dtype=m.int64), (3,)),
    lambda m, F: F.group_norm(m.randn(6), 3),
    lambda m, F: F.group_norm(m.randn(1, 4), 4),
    lambda m, F: F.group_norm(m.randn(2, 6, 3), 3, m.ones(5)),
    lambda m, F: F.instance_norm(m.randn(2, 6)),
    lambda m, F: F.instance_norm(m.randn(2, 6, 3), use_input_stats=False),
    lambda m, F: F.rms_norm(m.randn(2, 3), (2, 4)),
    lambda m, F: F.rms_norm(m.randn(2, 3), (3,), m.ones(4)),
    lambda m, F: F.local_response_norm(m.randn(2, 3), 2),
])
def test_errors(call):
    outcomes = []
    for m, F in ((ember, EF), (torch, TF)):
        try:
            call(m, F)
            outcomes.append(None)
        except Exception as e:  # noqa: BLE001 - compared below
            # argument-parsing TypeErrors word their message differently; other errors match torch's text
            outcomes.append((type(e).__name__, "" if isinstance(e, TypeError) else str(e)))
    assert outcomes[1] is not None
    assert outcomes[0] == outcomes[1]


def test_torch_forms():
    x, w, b = torch.randn(2, 4, 3), torch.randn(4), torch.randn(4)
    xe, we, be = (ember.from_numpy(t.numpy()) for t in (x, w, b))
    assert_same(ember.layer_norm(xe, [3]), torch.layer_norm(x, [3]), rtol=1e-5, atol=1e-5)
    assert_same(ember.group_norm(xe, 2, we, be), torch.group_norm(x, 2, w, b), rtol=1e-5, atol=1e-5)
    assert_same(ember.instance_norm(xe, we, be, None, None, True, 0.1, 1e-5, False),
                torch.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False), rtol=1e-5, atol=1e-5)
    assert_same(ember.rms_norm(xe, [3]), torch.rms_norm(x, [3]), rtol=1e-5, atol=1e-5)

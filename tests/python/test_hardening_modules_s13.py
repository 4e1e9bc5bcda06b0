"""Regressions for the differential tester's nn module and optimizer families (session 13)."""
import math

import pytest
import torch

import ember
from conftest import assert_same


def both(fn):
    return fn(ember), fn(torch)


@pytest.mark.parametrize("nd, groups, stride", [(1, 1, 1), (1, 2, 1), (2, 2, 1), (2, 1, 2)])
def test_dilated_transposed_convolution_with_output_padding(nd, groups, stride):
    # oneDNN refuses a dilated backward-data primitive here: the im2col path computes it (was a RuntimeError)
    def run(m):
        m.manual_seed(0)
        x = m.randn((2, 4) + (5,) * nd, requires_grad=True)
        w = m.randn((4, 3) + (2,) * nd, requires_grad=True)
        f = m.nn.functional.conv_transpose1d if nd == 1 else m.nn.functional.conv_transpose2d
        y = f(x, w, stride=stride, dilation=2, output_padding=1, groups=groups)
        y.square().sum().backward()
        return y.detach(), x.grad, w.grad
    for e, t in zip(*both(run)):
        assert_same(e, t, rtol=1e-5, atol=1e-5)


def test_batch_norm_eval_weight_gradient_with_inf_input():
    # sum(g * (x - mean)) is inf where the shortcut sum(g * x) - mean * sum(g) made inf - 0 * inf = nan
    def run(m):
        bn = m.nn.BatchNorm2d(2).double().eval()
        x = m.tensor([[1.0, math.inf], [2.0, 3.0]], dtype=m.float64).view(2, 2, 1, 1)
        bn(x).square().sum().backward()
        return bn.weight.grad, bn.bias.grad
    for e, t in zip(*both(run)):
        assert_same(e, t)


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 2, 3), (2, 2, 2, 3)])
@pytest.mark.parametrize("contiguous", [True, False])
def test_linear_grad_fn_follows_torch(shape, contiguous):
    def run(m):
        x = m.randn(*shape, requires_grad=True)
        if not contiguous and len(shape) > 1:
            x = x.transpose(0, -1).contiguous().transpose(0, -1)
        return m.nn.Linear(3, 2)(x).grad_fn.name()
    e, t = both(run)
    assert e == t


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("lead", [(), (4,), (3, 4)])
def test_bilinear_grad_fn_follows_torch(bias, lead):
    e, t = both(lambda m: m.nn.Bilinear(2, 3, 2, bias=bias)(m.randn(*lead, 2), m.randn(*lead, 3)).grad_fn.name())
    assert e == t


@pytest.mark.parametrize("masked", [False, True])
def test_attention_rows_with_all_scores_minus_inf_are_zero(masked):
    # torch's _safe_softmax judges the scores, not only the mask: a -inf query gives a 0 row, no NaN
    def run(m):
        q = m.tensor([[[-math.inf, 1.0, 1.0], [1.0, 1.0, 1.0], [0.5, -1.0, 2.0]]], requires_grad=True)
        k = m.tensor([[[1.0, 1.0, 1.0], [1.0, 2.0, 1.0], [0.0, 1.0, -1.0]]])
        v = m.arange(9.0).view(1, 3, 3)
        mask = m.tensor([[True, True, True], [True, True, True], [False, False, False]]) if masked else None
        out = m.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        out.sum().backward()
        return out.detach(), q.grad
    for e, t in zip(*both(run)):
        assert_same(e, t, rtol=1e-6)


def scheduler_outcome(m, make):
    p = m.nn.Parameter(m.zeros(1))
    p.grad = m.ones(1)
    opt = m.optim.SGD([p], lr=0.1, momentum=0.9)
    try:
        sched = make(m, opt)
        return [(opt.step(), sched.step(), opt.param_groups[0]["lr"])[2] for _ in range(4)]
    except Exception as e:  # noqa: BLE001 - the exception type and text are compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("make", [
    lambda m, o: m.optim.lr_scheduler.StepLR(o, step_size=2, last_epoch=3),  # no initial_lr: KeyError
    lambda m, o: m.optim.lr_scheduler.LambdaLR(o, lambda e: 0.9 ** e, last_epoch=1),
    lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=10, pct_start=0.1),  # a phase of 0 steps
    lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=10, pct_start=0.3),
])
def test_scheduler_errors_and_values_follow_torch(make):
    e, t = both(lambda m: scheduler_outcome(m, make))
    if isinstance(t, tuple):
        assert e == t
    else:
        assert e == pytest.approx(t, rel=1e-12)

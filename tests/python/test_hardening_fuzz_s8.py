"""Regressions for the differential fuzzer's findings of seed 8 and of its nn op families."""
import math

import pytest
import torch

import ember
from conftest import assert_same, outcome


def both(fn):
    return fn(ember), fn(torch)


def test_mm_with_a_transposed_operand_keeps_inf_times_zero_nan():
    # BLIS's small-matrix path dropped inf * 0 terms when A was passed transposed
    a = [[3, 2.61, -2.0, -2.75], [3, 4, -4, -4], [math.inf, 4, -2.25, 2], [-2.25, math.nan, 1, -1.5]]
    b = [[0.38, -1.07, 1.85], [1.0, 0.19, 2.97], [-4, 3, 0], [-1, -1, 0.08]]
    for dtype in ("float32", "float64"):
        e, t = both(lambda m: m.mm(m.tensor(a, dtype=getattr(m, dtype)).t(), m.tensor(b, dtype=getattr(m, dtype))))
        assert_same(e, t, rtol=1e-6)
        e, t = both(lambda m: m.bmm(m.tensor([a], dtype=getattr(m, dtype)).transpose(1, 2),
                                    m.tensor([b], dtype=getattr(m, dtype))))
        assert_same(e, t, rtol=1e-6)


@pytest.mark.parametrize("index", [False, (None, -3, slice(-2, 3), 0), [[]]])
def test_setitem_checks_the_value_fits_before_indexing(index):
    for value in (-0.36, 300.0, math.nan):
        results = [outcome(lambda m=m: m.zeros(2, 3, 0, dtype=m.uint8).__setitem__(index, value)) for m in (ember, torch)]
        assert type(results[0][1]) is type(results[1][1]) is RuntimeError
        assert str(results[0][1]) == str(results[1][1])


@pytest.mark.parametrize("shape, target", [((4,), (1, 4)), ((4,), (2, 1, 4)), ((2, 1), (1, 2, 3)), ((3, 1), (1, 1, 3, 1)),
                                           ((), (1,)), ((), (1, 1)), ((0, 2), (1, 0, 2))])
def test_expand_gives_new_size_one_dims_torch_strides(shape, target):
    e, t = both(lambda m: m.zeros(shape).expand(target))
    assert_same(e, t)


def test_broadcast_layout_follows_torch_through_size_one_dims():
    def prog(m):
        v2 = m.tensor([3, 2, 1.22, 4.0], dtype=m.float64).expand(1, 4).movedim(1, -2)
        return m.gt(v2, m.tensor([0, -5, 127, -2], dtype=m.int8).as_strided((3, 1, 1), (1, 5, 2), 1))
    assert_same(*both(prog))


def test_masked_fill_result_has_contiguous_strides():
    e, t = both(lambda m: m.masked_fill(m.tensor([[-0.65, 2.25, -1.25]]).t(), m.tensor([[[True]]]), 1.0))
    assert_same(e, t)
    e, t = both(lambda m: m.tensor([[-4], [4]], dtype=m.int8).t().masked_fill(m.tensor(False), 0))
    assert_same(e, t)


@pytest.mark.parametrize("target", [[0.5, math.nan], [0.5, 1.5], [-0.1, 0.2]])
def test_binary_cross_entropy_checks_the_target_range(target):
    results = [outcome(lambda m=m: m.nn.functional.binary_cross_entropy(m.tensor([0.3, 0.6]), m.tensor(target)))
               for m in (ember, torch)]
    assert type(results[0][1]) is type(results[1][1]) is RuntimeError
    assert str(results[0][1]) == str(results[1][1]) == "all elements of target should be between 0 and 1"


@pytest.mark.parametrize("layout", ["t", "permute", "strided"])
def test_rms_norm_result_is_contiguous(layout):
    def prog(m):
        x = m.arange(24.0, requires_grad=True)
        v = {"t": lambda: x[:12].view(3, 4).t(), "permute": lambda: x.view(2, 3, 4).permute(2, 0, 1),
             "strided": lambda: x.as_strided((1, 4, 1, 2), (5, 3, 5, 5), 2)}[layout]()
        y = m.nn.functional.rms_norm(v, v.shape[-1:], eps=0.1)
        return y.detach(), type(y.grad_fn).__name__
    (e, ename), (t, tname) = both(prog)
    assert_same(e, t, rtol=1e-6)
    assert ename == tname


@pytest.mark.parametrize("kernel, transposed", [(1, False), (1, True), (2, True)])
def test_unfold_result_is_a_fresh_contiguous_tensor(kernel, transposed):
    def prog(m):
        x = m.arange(8.0).view(1, 1, 2, 4)
        x = x.transpose(2, 3) if transposed else x
        return x, m.nn.functional.unfold(x, kernel)
    (ex, e), (_, t) = both(prog)
    assert_same(e, t)
    e.fill_(-1)
    assert ex.min().item() == 0  # no alias of the input


class TestMemoryFormat:
    def test_contiguous_clone_to_and_factories_take_channels_last(self):
        calls = [
            lambda m: m.arange(120.0).view(2, 3, 4, 5).contiguous(memory_format=m.channels_last),
            lambda m: m.arange(120.0).view(2, 3, 4, 5).clone(memory_format=m.channels_last),
            lambda m: m.arange(120.0).view(2, 3, 4, 5).to(memory_format=m.channels_last),
            lambda m: m.arange(120.0).view(2, 3, 4, 5).to(m.float64, memory_format=m.channels_last),
            lambda m: m.arange(240.0).view(2, 3, 2, 4, 5).contiguous(memory_format=m.channels_last_3d),
            lambda m: m.empty(2, 3, 4, 5, memory_format=m.channels_last).fill_(1),
            lambda m: m.empty((2, 0, 4, 5), memory_format=m.channels_last),
            lambda m: m.zeros_like(m.ones(2, 3, 4, 5), memory_format=m.channels_last),
            lambda m: m.full_like(m.ones(2, 3, 4, 5), 2, memory_format=m.channels_last),
            lambda m: m.empty_like(m.ones(2, 3, 4, 5).permute(0, 2, 3, 1), memory_format=m.contiguous_format).fill_(0),
            lambda m: m.ones(2, 3, 4, 5).contiguous(memory_format=m.channels_last).contiguous(),
            lambda m: m.ones(2, 3, 4, 5).contiguous(memory_format=m.channels_last).clone(),
        ]
        for call in calls:
            assert_same(*both(call))

    def test_is_contiguous_by_format(self):
        def flags(m):
            x = m.ones(2, 3, 4, 5)
            cl = x.contiguous(memory_format=m.channels_last)
            return [x.is_contiguous(memory_format=m.channels_last), cl.is_contiguous(memory_format=m.channels_last),
                    cl.is_contiguous(), m.ones(1, 3, 1, 1).is_contiguous(memory_format=m.channels_last),
                    m.ones(2, 3).is_contiguous(memory_format=m.channels_last),
                    m.ones(3, 4).t().is_contiguous(memory_format=m.preserve_format),
                    cl.contiguous(memory_format=m.channels_last) is cl]
        assert flags(ember) == flags(torch)

    @pytest.mark.parametrize("call", [
        lambda m: m.ones(2, 3).contiguous(memory_format=m.channels_last),
        lambda m: m.ones(2, 3, 4, 5).contiguous(memory_format=m.channels_last_3d),
        lambda m: m.ones(2, 3).t().contiguous(memory_format=m.preserve_format),
        lambda m: m.empty(2, 3, memory_format=m.channels_last),
        lambda m: m.empty(2, 3, memory_format=m.preserve_format),
        lambda m: m.zeros(2, 3, memory_format=m.contiguous_format),
        lambda m: m.ones(2, 3).is_contiguous(memory_format=1),
    ])
    def test_errors(self, call):
        (_, ee), (_, te) = outcome(lambda: call(ember)), outcome(lambda: call(torch))
        assert te is not None and type(ee) is type(te)
        assert str(ee).replace("torch.", "ember.") == str(te).replace("torch.", "ember.") or isinstance(te, TypeError)

    def test_gradients_flow_through_format_copies(self):
        def prog(m):
            x = m.arange(120.0).view(2, 3, 4, 5).requires_grad_()
            a, b = x.contiguous(memory_format=m.channels_last), x.to(memory_format=m.channels_last)
            (a * 2 + b).sum().backward()
            return x.grad, type(a.grad_fn).__name__, type(b.grad_fn).__name__
        (e, *en), (t, *tn) = both(prog)
        assert_same(e, t)
        assert en == tn

    def test_conv_and_pool_keep_channels_last(self):
        def prog(m):
            m.manual_seed(0)
            x = m.rand(2, 4, 6, 6).contiguous(memory_format=m.channels_last)
            w = m.rand(3, 4, 3, 3)
            return m.nn.functional.conv2d(x, w), m.nn.functional.max_pool2d(x, 2)
        (ec, ep), (tc, tp) = both(prog)
        assert_same(ec, tc, rtol=1e-5, atol=1e-5)
        assert_same(ep, tp)

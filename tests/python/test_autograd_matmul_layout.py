"""Matrix-product gradients take torch's layouts, and the gemm's inf/nan scan sees every element."""
import itertools
import math

import pytest
import torch

import ember
from conftest import assert_same

LAYOUTS = {"rows": lambda t: t, "cols": lambda t: t.t().contiguous().t(), "sliced": lambda t: t[:, ::2]}


def operand(m, rows, cols, layout, seed):
    m.manual_seed(seed)
    base = m.randn(rows, cols * (2 if layout == "sliced" else 1), dtype=m.float64)
    return LAYOUTS[layout](base).requires_grad_()


@pytest.mark.parametrize("M, K, N", [(3, 4, 5), (1, 4, 5), (3, 1, 5), (3, 4, 1), (4, 4, 4)])
@pytest.mark.parametrize("la, lb", list(itertools.product(LAYOUTS, LAYOUTS)))
@pytest.mark.parametrize("op", ["mm", "addmm"])
def test_gradient_strides_follow_torch(M, K, N, la, lb, op):
    def grads(m):
        a, b = operand(m, M, K, la, 0) * 1, operand(m, K, N, lb, 1) * 1
        a = LAYOUTS[la](a) if la == "cols" else a  # non-leaf operands keep the layout under test
        b = LAYOUTS[lb](b) if lb == "cols" else b
        out = m.mm(a, b) if op == "mm" else m.addmm(m.ones(N, dtype=m.float64), a, b, alpha=2.0)
        return m.autograd.grad((out * out).sum(), (a, b))
    for e, t in zip(grads(ember), grads(torch)):
        assert_same(e, t, rtol=1e-12)
        assert e.stride() == t.stride()


def test_linear_weight_gradient_is_contiguous():
    layer = ember.nn.Linear(6, 4)
    layer(ember.randn(3, 6)).sum().backward()
    assert layer.weight.grad.is_contiguous() and layer.bias.grad.is_contiguous()


@pytest.mark.parametrize("where", [(0, 0), (6, 2), (7, 4)])
@pytest.mark.parametrize("value", [math.inf, math.nan])
def test_transposed_operand_with_a_leading_gap_keeps_non_finite(where, value):
    # A is a column slice of a transposed matrix (leading dim > rows): each column run is scanned for inf/nan
    def product(m):
        big = m.arange(80.).reshape(10, 8)
        big[where[1] + 1, where[0]] = value
        a = big.t()[:, 1:9]  # a[i, j] = big[j + 1, i]
        b = m.zeros(8, 3)
        b[:, 0] = 1
        return m.mm(a, b)
    assert_same(product(ember), product(torch))

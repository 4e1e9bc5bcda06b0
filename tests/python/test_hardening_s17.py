"""Regression tests for session 17's fuzz findings: the whole-tensor max/min into out= over an empty input (torch
runs its kernel there, leaving the fold's identity, where max(x) without out= raises)."""
import pytest
import torch

import ember
from conftest import assert_same

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("fn", ["max", "min"])
@pytest.mark.parametrize("name", NAMES)
def test_whole_extremum_of_empty_into_out(fn, name):
    got = []
    for m in (ember, torch):  # fuzz seed 61: min(empty float32, out=zeros(0)) raised where torch gives inf
        x = m.zeros(0, dtype=getattr(m, name))
        got.append((getattr(m, fn)(x, out=m.zeros(0, dtype=getattr(m, name))),
                    getattr(m, fn)(x, out=m.zeros(3, dtype=m.float64)) if name != "bool" else None))
    for e, t in zip(*got):
        if t is not None:
            assert_same(e, t)


@pytest.mark.parametrize("fn", ["max", "min"])
def test_whole_extremum_of_empty_without_out_raises(fn):
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match="Expected reduction dim to be specified"):
            getattr(m, fn)(m.zeros(0))


def test_ldexp_gradient_with_a_negative_integer_exponent():
    """Fuzz seed 64: torch's ldexp backward computes 2 ** other in other's integer dtype (0 for a negative exponent,
    tests/fuzz/known.py); the gradient is 2 ** other."""
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    ember.ldexp(x, ember.tensor([-4, 2], dtype=ember.int8)).sum().backward()
    assert x.grad.tolist() == [0.0625, 4.0]


@pytest.mark.parametrize("x_dtype, out_dtype", [("float16", "bfloat16"), ("bfloat16", "float16"),
                                                ("float16", "float32"), ("bfloat16", "float64"),
                                                ("float32", "bfloat16")])
@pytest.mark.parametrize("fn", ["var", "std"])
def test_spread_of_half_into_another_half_out(fn, x_dtype, out_dtype):
    """Fuzz seed 64: var(float16, out=bfloat16) raised std_var_all; torch refuses only a wider out."""
    got = []
    for m in (ember, torch):
        x = m.tensor([-1.0, -3.75, 1.69, 0.3], dtype=getattr(m, x_dtype))
        try:
            got.append(getattr(m, fn)(x, out=m.zeros((), dtype=getattr(m, out_dtype))))
        except RuntimeError as e:
            got.append(str(e))
    if isinstance(got[1], str):
        assert got[0] == got[1]
    else:
        assert_same(got[0], got[1], rtol=1e-2, atol=1e-2)


def test_scan_out_checks_the_dim_first():
    """Fuzz seed 64: cumsum with a bad dim and a mismatched out= dtype raises torch's IndexError, not the dtype error."""
    for m in (ember, torch):
        with pytest.raises(IndexError, match="Dimension out of range"):
            m.cumsum(m.zeros(1, 2, dtype=m.int32), -3, dtype=m.float16, out=m.zeros(1, 2, dtype=m.bfloat16))

"""Regressions found by the differential fuzzer in session 15 (tests/fuzz/found/): ldexp's integer exponent,
in-place composites on overlapping memory, nan_to_num_ on integers, and the in-place inverse hyperbolics' nodes."""
import math

import pytest
import torch

import ember


def both(fn):
    return fn(torch), fn(ember)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")  # torch's own ldexp
def test_ldexp_integer_exponent_is_std_ldexp(dtype):
    # 0 * 2^200 is 0 (not 0 * inf), inf * 2^-200 is inf, and the result is rounded once
    values = [1.5, 0.0, math.inf, -3.0, math.nan, 2.0 ** 100, 2.0 ** -100, 1e-30, -0.0, 2.0 ** -1000, 1e300]
    exps = [3, 200, -200, -140, 5, -160, 160, -130, 7, 2100, -1100, 1280, -2000, 2 ** 31 - 1, -(2 ** 31)]

    def run(m):
        x = m.tensor(values, dtype=getattr(m, dtype))[:, None]
        e = m.tensor(exps, dtype=m.int32)
        return m.ldexp(x, e)

    expected, got = both(run)
    assert str(got.dtype) == str(expected.dtype) and tuple(got.shape) == tuple(expected.shape)
    a, b = torch.from_numpy(got.double().numpy()), expected.double()
    same = (a == b) | (a.isnan() & b.isnan())
    assert same.all(), (a[~same], b[~same])


def test_ldexp_in_place_of_zeros_by_uint8():
    def run(m):
        x = m.zeros(3)
        return x.ldexp_(m.tensor(255, dtype=m.uint8))
    expected, got = both(run)
    assert got.tolist() == expected.tolist() == [0.0, 0.0, 0.0]


def test_in_place_composite_checks_overlap_before_dtype():
    for m in (torch, ember):
        t = m.tensor([False, True, False, True, True, False]).as_strided((2, 3), (3, 0), 2)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            t.clamp_min_(False)


def test_nan_to_num_in_place_of_integers_is_a_no_op_even_when_expanded():
    expected, got = both(lambda m: m.tensor([[-5]]).expand(5, 1).nan_to_num_())
    assert got.tolist() == expected.tolist() and got.stride() == expected.stride()


@pytest.mark.parametrize("op", ["acosh", "asinh", "atanh"])
def test_in_place_inverse_hyperbolics_record_an_underivable_node(op):
    for m in (torch, ember):
        x = m.tensor([1.5, 0.5], requires_grad=True)
        y = getattr(x * 1, op + "_")()
        assert y.grad_fn.name() == op.capitalize() + "Backward1"
        with pytest.raises(NotImplementedError, match=f"inplace version of {op}"):
            y.sum().backward()
    out_of_place = ember.tensor([0.5], requires_grad=True)
    getattr(ember, op)(out_of_place).sum().backward()  # the out-of-place form keeps its derivative
    assert out_of_place.grad is not None


def test_isneginf_of_integers_takes_zeros_like_layout():
    expected, got = both(lambda m: m.isposinf(m.arange(22, dtype=m.int16).as_strided((2, 4), (5, 5), 1)))
    assert got.stride() == expected.stride() == (1, 2) and not got.any()


def test_softmax_result_has_contiguous_strides_in_size_one_dims():
    # (4, 1) results are (1, 1), not (1, 4): later ops order their loops by these strides
    for make in (lambda m: m.zeros(4, 1), lambda m: m.zeros(1, 4).mT, lambda m: m.zeros(3, 1, 4).permute(2, 1, 0)):
        expected, got = both(lambda m: m.log_softmax(make(m), 0))
        assert got.stride() == expected.stride()
    other = [[[-2.0, -3.0, 0.0]]]
    expected, got = both(lambda m: m.fmax(m.log_softmax(m.zeros(4, 1), -2).lt(1), m.tensor(other).permute(2, 1, 0)))
    assert got.stride() == expected.stride() == (1, 3, 12)

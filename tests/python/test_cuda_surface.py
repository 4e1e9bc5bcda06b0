"""The op-surface rows on the GPU (src/cuda/unary/special.cu, trig.cu, the new binary rows): CUDA results equal
Ember's CPU ones over the floating dtypes, strided and empty inputs included."""
import numpy as np
import pytest

import ember
from conftest import assert_same

pytestmark = pytest.mark.cuda

UNARY = ["asinh", "acosh", "atanh", "deg2rad", "rad2deg", "sinc", "sgn", "lgamma", "digamma", "erfinv", "i0"]
SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -2.5, 3.0, 12.5, -20.25, 1e-30, 0.999, -0.999, float("inf"),
           float("-inf"), float("nan"), 80.0, 1e6]
TOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-12}


def _inputs(dtype):
    rng = np.random.default_rng(0)
    x = ember.from_numpy(rng.uniform(-4, 4, (33, 17))).to(getattr(ember, dtype))
    return [x, x.t(), x[:, ::3], ember.tensor(SPECIAL, dtype=getattr(ember, dtype)), ember.zeros(0, 3, dtype=x.dtype)]


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("name", UNARY)
def test_unary_rows_match_cpu(name, dtype):
    for x in _inputs(dtype):
        expected = getattr(ember, name)(x)
        got = getattr(ember, name)(x.cuda()).cpu()
        assert_same(got, expected, check_strides=False, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_rows_match_cpu(name, dtype):
    for x in _inputs(dtype)[:4]:
        y = x.flip(0) if x.dim() else x
        expected = getattr(ember, name)(x, y)
        assert_same(getattr(ember, name)(x.cuda(), y.cuda()).cpu(), expected, check_strides=False, rtol=TOL[dtype],
                    atol=TOL[dtype])


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_gcd_lcm_rows_match_cpu(dtype):
    rng = np.random.default_rng(1)
    a = ember.from_numpy(rng.integers(-40 if dtype != "uint8" else 0, 40, (64,))).to(getattr(ember, dtype))
    b = a.flip(0)
    for name in ("gcd", "lcm"):
        assert_same(getattr(ember, name)(a.cuda(), b.cuda()).cpu(), getattr(ember, name)(a, b))


def test_isin_of_nothing_stays_on_the_device():
    got = ember.isin(ember.empty(0, device="cuda"), ember.tensor([1.0], device="cuda"))
    assert got.device.type == "cuda" and got.dtype == ember.bool and got.shape == (0,)

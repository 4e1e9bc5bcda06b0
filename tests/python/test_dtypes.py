"""dtype conversions (round to nearest even, inf/nan, float8 saturation), finfo/iinfo, devices."""
import numpy as np
import pytest
import torch

import ember
from conftest import DTYPES, DTYPE_NAMES, FLOAT_NAMES, assert_same, dtype_id, pair_from_numpy

SPECIAL = np.array([0.0, -0.0, 1.0, -1.5, 0.1, 1 / 3, 2.5, 3.5, -2.5, 65504.0, 65520.0, 70000.0, 1e-8, 6e-8, 3e-8,
                    448.0, 460.0, 464.0, 480.0, 500.0, 57344.0, 61440.0, 1e9, -1e9, 3e38, 1e-40, np.inf, -np.inf, np.nan,
                    127.0, 128.0, 255.0, 256.0, -129.0, 300.0, -200.0, 3.7, -3.7, 2**31, -2**31 - 1e3, 1e10])


@pytest.mark.parametrize("src", FLOAT_NAMES)
@pytest.mark.parametrize("dst", DTYPES, ids=dtype_id)
def test_conversion_matches_torch(src, dst):
    e, t = pair_from_numpy(SPECIAL.astype(np.float64), src)
    assert_same(e.to(dst[0]), t.to(dst[1]))


@pytest.mark.parametrize("src", ["bool", "uint8", "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("dst", DTYPES, ids=dtype_id)
def test_integer_conversion_matches_torch(src, dst):
    values = np.array([0, 1, -1, 127, -128, 255, 256, 300, -300, 70000, -70000, 2**31 - 1, -2**31, 2**40, 2**62],
                      dtype=np.int64)
    t = torch.from_numpy(values.copy()).to(getattr(torch, src))
    e = ember.from_numpy(values.copy()).to(getattr(ember, src))
    assert_same(e, t)
    assert_same(e.to(dst[0]), t.to(dst[1]))


def test_seed_dtype_examples():
    big = ember.tensor(70000.0)
    assert repr(big.half()) == "tensor(inf, dtype=torch.float16)"
    assert repr(big.bfloat16()) == "tensor(70144., dtype=torch.bfloat16)"
    assert ember.finfo(ember.float16).max == 65504
    x = ember.randn(3, 3)
    for fn in ("half", "bfloat16", "float", "double", "long", "int", "short", "char", "byte", "bool"):
        y = getattr(x, fn)()
        assert str(y.dtype) == str(getattr(torch.randn(1), fn)().dtype)


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_finfo(name):
    e, t = ember.finfo(getattr(ember, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(e, attr) == getattr(t, attr), attr
    assert repr(e) == repr(t)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo(name):
    e, t = ember.iinfo(getattr(ember, name)), torch.iinfo(getattr(torch, name))
    assert (e.bits, e.min, e.max) == (t.bits, t.min, t.max)
    assert repr(e) == repr(t)


def test_dtype_objects():
    for name in DTYPE_NAMES:
        assert repr(getattr(ember, name)) == repr(getattr(torch, name))
        assert getattr(ember, name) is getattr(ember, name)
    assert ember.float is ember.float32 and ember.long is ember.int64 and ember.half is ember.float16
    assert ember.zeros(2, dtype=float).dtype is ember.float64
    assert ember.zeros(2, dtype=int).dtype is ember.int64
    assert ember.zeros(2, dtype=bool).dtype is ember.bool
    assert ember.get_default_dtype() is ember.float32


def test_devices():
    for spec in ["cpu", "cuda", "cuda:1", "cpu:0"]:
        e, t = ember.device(spec), torch.device(spec)
        assert repr(e) == repr(t) and str(e) == str(t)
        assert (e.type, e.index) == (t.type, t.index)
    assert repr(ember.device("cuda", 1)) == repr(torch.device("cuda", 1))
    assert ember.device("cpu") == ember.device("cpu")
    assert ember.zeros(2).device == ember.device("cpu")
    assert repr(ember.zeros(2).device) == "device(type='cpu')"
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        ember.device("gpu")
    with pytest.raises(RuntimeError, match="Invalid device string"):
        ember.device("cuda:x")


def test_cuda_unavailable_is_clear():
    assert ember.cuda.is_available() is False
    assert ember.cuda.device_count() == 0
    x = ember.zeros(3)
    for call in (lambda: ember.zeros(3, device="cuda"), lambda: x.cuda(), lambda: x.to("cuda"),
                 lambda: x.to("cuda:0"), lambda: ember.ones(2, device=ember.device("cuda", 0))):
        with pytest.raises(AssertionError, match="needs a CUDA device"):
            call()
    assert x.tolist() == [0.0, 0.0, 0.0]

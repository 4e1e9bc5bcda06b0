"""Unary elementwise ops against torch: every op x dtype x layout, in-place forms and dtype rules."""
import glob
import re

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same

ROOT = __file__.rsplit("/tests/", 1)[0]
DEF = "".join(open(p).read() for p in sorted(glob.glob(ROOT + "/include/ember/unary/*.def")))  # unary_ops.def's rows
UNARY = re.findall(r"^EMBER_UNARY_OP\((\w+),", DEF, re.M)
NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
TOL = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1e-5, 1e-6), "float64": (1e-12, 1e-14)}

rng = np.random.default_rng(3)
VALUES = np.concatenate([rng.uniform(-3, 3, 40), [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, 0.999, -0.999, 10.0, -10.0]])
SPECIAL = np.array([np.inf, -np.inf, np.nan, 1e-30, -1e-30, 88.0, -88.0, 1e6, -1e6])


def make(m, name, layout, values=VALUES):
    arr = values.copy()
    if name in ("bool", "uint8", "int8", "int16", "int32", "int64"):
        arr = np.round(np.nan_to_num(arr, nan=0, posinf=5, neginf=-5)).clip(-5, 5)
        if name == "uint8":
            arr = np.abs(arr)
    t = m.from_numpy(arr).to(getattr(m, name))
    n = t.numel() - t.numel() % 2
    if layout == "transposed":
        return t[:n].reshape(2, -1).t()
    if layout == "sliced":
        return t[::3]
    if layout == "zero_dim":
        return t[3]
    if layout == "empty":
        return t[:0]
    return t


def op_fn(m, op):
    """ember.op, or where torch keeps it (torch.nn.functional.silu)."""
    if m is torch and not hasattr(torch, op):
        return getattr(torch.nn.functional, op)
    return getattr(m, op)


def compare(fn, name, layout, values=VALUES):
    def run(m):
        try:
            return fn(m, make(m, name, layout, values)), None
        except Exception as e:  # noqa: BLE001
            return None, e
    rt, et = run(torch)
    re_, ee = run(ember)
    if et is not None:
        assert ee is not None, f"torch raised {et!r}, ember returned {re_}"
        assert type(ee).__name__ == type(et).__name__, (ee, et)
        return
    assert ee is None, f"ember raised {ee!r}"
    rtol, atol = TOL.get(str(rt.dtype).replace("torch.", ""), (0, 0))
    assert_same(re_, rt, rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "zero_dim", "empty"])
def test_unary_matches_torch(op, name, layout):
    compare(lambda m, x: op_fn(m, op)(x), name, layout)


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_unary_special_values(op, name):
    compare(lambda m, x: op_fn(m, op)(x), name, "contiguous", SPECIAL)


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("name", ["int64", "float32", "float16", "bool"])
def test_unary_in_place(op, name):
    if not hasattr(torch.Tensor, op + "_"):
        pytest.skip(f"torch has no Tensor.{op}_")
    def fn(m, x):
        x = x.clone()
        r = getattr(x, op + "_")()
        assert r is x
        return x
    compare(fn, name, "transposed")


def test_operators():
    for m in (ember, torch):
        x = m.tensor([-1.5, 2.0])
        assert (-x).tolist() == [1.5, -2.0]
        assert abs(x).tolist() == [1.5, 2.0]


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("name,out_dtype", [("float32", "float32"), ("float32", "float64"), ("int64", "int64"),
                                            ("int64", "float32"), ("float32", "int64")])
def test_unary_out(op, name, out_dtype):
    if not hasattr(torch, op):
        pytest.skip(f"torch has no torch.{op}")
    try:
        getattr(torch, op)(torch.ones(1, dtype=torch.int64), out=torch.empty(1, dtype=torch.int64))
    except TypeError:
        pytest.skip(f"torch.{op} has no out= form (ember's takes one)")
    except (RuntimeError, NotImplementedError):
        pass  # an out= form that rejects this dtype
    def fn(m, x):
        out = m.empty(0, dtype=getattr(m, out_dtype))
        assert getattr(m, op)(x, out=out) is out
        return out.to(m.float32 if name == "float32" else out.dtype)  # compared at the precision computed in
    compare(fn, name, "transposed")

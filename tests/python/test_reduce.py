"""Reductions against torch: ops x dtypes x dims x keepdim x layouts, empty and 0-dim inputs."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
TOL = {"float16": (2e-3, 1e-2), "bfloat16": (1.6e-2, 1e-1), "float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)}
OPS = ["sum", "mean", "prod", "amax", "amin", "all", "any", "argmax", "argmin", "max", "min"]
DIMS = [None, 0, 1, -1, (0, 2), (2, 0, 1), ()]

rng = np.random.default_rng(11)
VALUES = rng.integers(-3, 4, size=(3, 4, 5)).astype(np.float64)
VALUES[0, 1, 2] = 2.5


def make(m, name, layout):
    arr = np.abs(VALUES) if name == "uint8" else VALUES
    x = m.from_numpy(arr.copy()).to(getattr(m, name))
    if layout == "transposed":
        return x.transpose(0, 2).contiguous().transpose(0, 2)
    if layout == "sliced":
        return m.from_numpy(np.repeat(arr, 2, axis=2).copy()).to(getattr(m, name))[:, :, ::2]
    if layout == "expanded":
        return x[:, :1].expand(3, 4, 5)
    return x


def call(m, op, x, dim, keepdim):
    if op in ("argmax", "argmin"):
        if isinstance(dim, tuple):
            return getattr(m, op)(x, dim=None if not dim else dim[0], keepdim=keepdim)
        return getattr(m, op)(x, dim=dim, keepdim=keepdim)
    if op in ("max", "min"):
        if dim is None or isinstance(dim, tuple):
            return getattr(m, op)(x)
        return tuple(getattr(m, op)(x, dim, keepdim))
    if op == "prod" and isinstance(dim, tuple):
        dim = None if len(dim) != 1 else dim[0]
    if dim is None:
        return getattr(x, op)()
    return getattr(m, op)(x, dim, keepdim=keepdim)


def compare(rt, re_):
    if isinstance(rt, tuple):
        for a, b in zip(re_, rt):
            compare(b, a)
        return
    rtol, atol = TOL.get(str(rt.dtype).replace("torch.", ""), (0, 0))
    assert_same(re_, rt, check_strides=False, rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_reduction_matches_torch(op, name, dim, keepdim):
    for layout in ("contiguous", "transposed", "sliced", "expanded"):
        rt, et = outcome(lambda: call(torch, op, make(torch, name, layout), dim, keepdim))
        re_, ee = outcome(lambda: call(ember, op, make(ember, name, layout), dim, keepdim))
        if et is not None:
            assert ee is not None, f"torch raised {et!r}; ember gave {re_}"
            assert type(ee).__name__ == type(et).__name__, (ee, et)
            continue
        assert ee is None, f"ember raised {ee!r}"
        compare(rt, re_)


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "all", "any", "argmax"])
@pytest.mark.parametrize("shape,dim", [((0, 3), 0), ((0, 3), 1), ((0, 3), None), ((), None), ((), 0), ((2, 0), -1)])
def test_empty_and_zero_dim(op, shape, dim):
    def mk(m):
        return m.zeros(shape) + 1.5
    rt, et = outcome(lambda: getattr(torch, op)(mk(torch)) if dim is None else getattr(torch, op)(mk(torch), dim))
    re_, ee = outcome(lambda: getattr(ember, op)(mk(ember)) if dim is None else getattr(ember, op)(mk(ember), dim))
    assert (et is None) == (ee is None), (et, ee)
    if et is None:
        compare(rt, re_)
    else:
        assert type(ee).__name__ == type(et).__name__


def test_sum_is_accurate():
    assert ember.ones(2**24).sum().item() == 16777216.0
    for n in (10**6, 3 * 10**6 + 17):
        exact = torch.full((n,), 0.1).double().sum().item()
        ember_error = abs(ember.full((n,), 0.1).sum().item() - exact)
        torch_error = abs(torch.full((n,), 0.1).sum().item() - exact)
        ulp = np.spacing(np.float32(exact))
        assert ember_error <= 2 * torch_error + ulp, (ember_error, torch_error)
    big = ember.rand(4096, 4096)
    tb = torch.from_numpy(big.numpy())
    torch.testing.assert_close(torch.from_numpy(big.t().sum(0).numpy()), tb.t().sum(0), rtol=1e-5, atol=1e-3)
    torch.testing.assert_close(torch.from_numpy(big.sum(1).numpy()), tb.sum(1), rtol=1e-5, atol=1e-3)
    assert abs(big.mean().item() - tb.mean().item()) < 1e-6


@pytest.mark.release_build
@pytest.mark.parametrize("n", [127, 128, 1000, 2047, 2048, 2049, 4 * 512 * 4 + 77, 100_003])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sum_of_long_runs(n, dtype):
    # Long runs are summed as interleaved streams plus a tail: each element counted once, as accurately as torch.
    values = np.random.default_rng(n).standard_normal(n).astype(dtype) + 1
    exact = float(np.sum(values.astype(np.float64)))
    ember_error = abs(ember.from_numpy(values).sum().item() - exact)
    torch_error = abs(torch.from_numpy(values).sum().item() - exact)
    assert ember_error <= 2 * torch_error + np.spacing(values.dtype.type(exact)), (ember_error, torch_error)

def test_nan_propagation_and_ties():
    for m in (ember, torch):
        x = m.tensor([[1.0, float("nan"), 3.0], [2.0, 2.0, 1.0]])
        assert str(m.amax(x, 1).tolist()) == str([float("nan"), 2.0])
        assert m.argmax(x, 1).tolist() == [1, 0]
        assert m.max(x, 1).indices.tolist() == [1, 0]
    assert repr(ember.max(ember.tensor([[1, 5], [7, 2]]), 1)) == repr(torch.max(torch.tensor([[1, 5], [7, 2]]), 1))


def test_errors():
    for code in ["m.arange(6).mean()", "m.zeros(2, 3).sum(2)", "m.zeros(2, 3).sum((0, 0))", "m.zeros(0, 3).amax(0)",
                 "m.zeros(0).argmax()"]:
        et, ee = outcome(lambda: eval(code, {"m": torch})), outcome(lambda: eval(code, {"m": ember}))
        assert et[1] is not None and ee[1] is not None, code
        assert type(ee[1]).__name__ == type(et[1]).__name__, (code, ee[1], et[1])

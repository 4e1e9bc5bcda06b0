"""cat and stack against torch: shapes, dtype promotion, layouts, dims, errors and gradients."""
import itertools

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome

rng = np.random.default_rng(5)
NAMES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def make(m, arr, name, layout):
    t = m.from_numpy(arr.copy()).to(getattr(m, name))
    if layout == "transposed":
        return m.from_numpy(np.ascontiguousarray(arr.T)).to(getattr(m, name)).t()
    if layout == "sliced":
        return m.from_numpy(np.repeat(arr, 2, axis=1)).to(getattr(m, name))[:, ::2]
    return t


@pytest.mark.parametrize("op", ["cat", "stack"])
@pytest.mark.parametrize("a,b", list(itertools.product(["int32", "float32", "bool", "float64", "bfloat16"], repeat=2)))
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_join_matches_torch(op, a, b, layout, dim):
    x, y = rng.integers(-3, 4, (3, 4)).astype(np.float64), rng.integers(-3, 4, (3, 4)).astype(np.float64)
    rt, et = outcome(lambda: getattr(torch, op)([make(torch, x, a, layout), make(torch, y, b, "contiguous")], dim))
    re_, ee = outcome(lambda: getattr(ember, op)([make(ember, x, a, layout), make(ember, y, b, "contiguous")], dim))
    assert (et is None) == (ee is None), (et, ee)
    if et is None:
        assert_same(re_, rt)


@pytest.mark.parametrize("code", [
    "m.cat([])", "m.stack([])", "m.cat([m.ones(2, 2), m.ones(3, 3)], 1)", "m.cat([m.ones(2, 2), m.ones(2, 2, 2)])",
    "m.cat([m.tensor(1.0), m.tensor(2.0)])", "m.stack([m.ones(2), m.ones(3)])", "m.cat([m.ones(2, 2)], 2)",
    "m.stack([m.ones(2)], 2)", "m.cat(m.ones(2))", "m.cat([m.ones(2), m.ones(2)], out=m.empty(4, dtype=m.int64))",
])
def test_join_errors_match_torch(code):
    et, ee = outcome(lambda: eval(code, {"m": torch})), outcome(lambda: eval(code, {"m": ember}))
    assert et[1] is not None and ee[1] is not None
    assert type(ee[1]).__name__ == type(et[1]).__name__
    assert str(ee[1]).split("\n")[0][:60] == str(et[1]).split("\n")[0][:60]


def test_join_special_cases():
    for m in (torch, ember):
        assert tuple(m.cat([m.ones(2, 3), m.empty(0)]).shape) == (2, 3)  # legacy empty inputs are skipped
        out = m.empty(0)
        assert m.cat([m.ones(2), m.zeros(1)], out=out) is out and out.tolist() == [1.0, 1.0, 0.0]
        assert tuple(m.stack([m.ones(2, 3)] * 4, dim=-1).shape) == (2, 3, 4)
        assert m.concat([m.ones(1), m.ones(1)]).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("op,dim", [("cat", 0), ("cat", 1), ("stack", 0), ("stack", 2)])
def test_join_grads_and_names(op, dim):
    xs = [rng.standard_normal((2, 3)) for _ in range(3)]
    res = []
    for m in (torch, ember):
        ts = [m.from_numpy(x.copy()).requires_grad_() for x in xs]
        ts[1] = ts[1].t().contiguous().t()  # a non-contiguous input (still a leaf-derived tensor)
        out = getattr(m, op)(ts, dim)
        (out * m.arange(out.numel(), dtype=m.float64).view(out.shape)).sum().backward()
        res.append((out.grad_fn.name(), [t.grad.tolist() if t.is_leaf else None for t in ts],
                    [g.grad.tolist() for g in ts if g.is_leaf]))
    assert res[0] == res[1]
    a = ember.from_numpy(xs[0]).requires_grad_()
    b = ember.from_numpy(xs[1]).requires_grad_()
    assert ember.autograd.gradcheck(lambda p, q: getattr(ember, op)([p, q * 2], dim), [a, b])
    assert ember.autograd.gradgradcheck(lambda p, q: getattr(ember, op)([p * q, q], dim) ** 2, [a, b])

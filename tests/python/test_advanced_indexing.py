"""Advanced indexing (tensors, lists, bool masks) against torch: reads, writes, errors, gradients."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome

BASE = np.arange(60, dtype=np.float64).reshape(3, 4, 5)

READS = [
    "x[[0, 2]]", "x[[0, -1], [1, 3]]", "x[:, [0, 2]]", "x[:, [3, 1], [4, 0]]", "x[[0, 2], :, [1, 3]]",
    "x[:, 0, [1, 2]]", "x[1, [1, 2]]", "x[[1], 2, [0, 4]]", "x[m.tensor([[0, 1], [2, 0]])]", "x[..., [4, 0]]",
    "x[None, [0, 1]]", "x[[0, 1], None]", "x[x > 30]", "x[0][x[0] % 2 == 0]", "x[x[:, :, 0] > 10]",
    "x[:, x[0, :, 0] > 6]", "x[m.tensor([True, False, True])]", "x[m.tensor(1)]", "x[[]]", "x[x > 1000]",
    "x[:, 1:3, [0, 2]]", "x[[2, 0, 2]][1]", "x.t()[[0, 1]]" if False else "x.transpose(0, 2)[[0, 1]]",
    "x[m.tensor([0, 2], dtype=m.int32)]", "x[m.tensor([[True, False, True, True]] * 3)]",
    "x[m.tensor(True)]", "x[m.tensor(False)]", "x[m.tensor(True), [1]]", "x[[[0, 1]], [[2], [0]]]",
    "x[True, [1, 2]]", "x[[0], False]", "x[:, True, [0]]",
]


@pytest.mark.parametrize("expr", READS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "bfloat16"])
def test_reads_match_torch(expr, dtype):
    def run(m):
        x = m.from_numpy(BASE.copy()).to(getattr(m, dtype)) if dtype != "bool" else m.from_numpy(BASE.copy()) > 25
        if dtype != "bool" and "x > " in expr or "% 2" in expr or "x[:, :, 0]" in expr or "x[0, :, 0]" in expr:
            x = m.from_numpy(BASE.copy()).to(getattr(m, dtype))
        return eval(expr, {"m": m, "x": x})
    rt, et = outcome(lambda: run(torch))
    re_, ee = outcome(lambda: run(ember))
    assert (et is None) == (ee is None), (et, ee)
    if et is None:
        assert_same(re_, rt, check_strides=False)
    else:
        assert type(ee).__name__ == type(et).__name__


WRITES = [
    ("x[[0, 2]] = 1", None), ("x[x > 30] = -1", None), ("x[:, [1, 3], [0, 4]] = v", "v2"), ("x[[0, 1], 2] = v", "v5"),
    ("x[x[:, :, 0] > 10] = v", "v5"), ("x[[0, 0, 1]] += 1", None), ("x[:, [0]] *= 2", None),
    ("x[m.tensor([[0, 1]])] = 0", None),
]


@pytest.mark.parametrize("code,value", WRITES)
def test_writes_match_torch(code, value):
    out = []
    for m in (torch, ember):
        x = m.from_numpy(BASE.copy())
        v = {"v2": m.tensor([10.0, 20.0], dtype=m.float64), "v5": m.arange(5.0, dtype=m.float64)}.get(value)
        exec(code, {"m": m, "x": x, "v": v})
        out.append(x.tolist())
    assert out[0] == out[1]


@pytest.mark.parametrize("code", ["x[[3]]", "x[:, [0, 4]]", "x[[0, 1], [0, 1, 2]]", "x[m.tensor([0.5])]",
                                  "x[m.ones(4, dtype=m.bool)]", "x[[0], [0], [0], [0]]", "x[[0, 1]] = m.ones(3)",
                                  "x[[0, 1]] = m.ones(5, dtype=m.float32)"])
def test_errors_match_torch(code):
    def run(m):
        x = m.from_numpy(BASE.copy())
        exec(code, {"m": m, "x": x})
    et, ee = outcome(lambda: run(torch)), outcome(lambda: run(ember))
    assert et[1] is not None and ee[1] is not None, (et, ee)
    assert type(ee[1]).__name__ == type(et[1]).__name__, (ee[1], et[1])


def check_grads_vs_torch(expr, data):
    """expr over x = data: the same node name and gradient as torch, and gradcheck passes."""
    res = []
    for m in (torch, ember):
        x = m.from_numpy(data.copy()).requires_grad_()
        y = eval(expr, {"m": m, "x": x})
        (y * m.arange(y.numel(), dtype=m.float64).view(y.shape)).sum().backward()
        res.append((y.grad_fn.name(), x.grad.tolist()))
    assert res[0] == res[1]
    x = ember.from_numpy(data).requires_grad_()
    assert ember.autograd.gradcheck(lambda t: eval(expr, {"m": ember, "x": t}) ** 2, [x])


@pytest.mark.parametrize("expr", ["x[[0, 2, 0]]", "x[:, [1, 1, 3]]", "x[x > 0]", "x[[0, 1], :, [2, 2]]"])
def test_index_gradients_match_torch(expr):
    data = np.random.default_rng(2).standard_normal((3, 4, 5))
    check_grads_vs_torch(expr, data)
    x = ember.from_numpy(data).requires_grad_()
    assert ember.autograd.gradgradcheck(lambda t: eval(expr, {"m": ember, "x": t}) ** 2, [x])


def test_index_put_gradients_match_torch():
    rng = np.random.default_rng(4)
    data, vals = rng.standard_normal((3, 4)), rng.standard_normal(2)
    res = []
    for m in (torch, ember):
        x = m.from_numpy(data.copy()).requires_grad_()
        v = m.from_numpy(vals.copy()).requires_grad_()
        y = x * 1
        y[[0, 2], [1, 3]] = v
        y[y > 1] = 0
        (y * y).sum().backward()
        res.append((y.grad_fn.name(), x.grad.tolist(), v.grad.tolist()))
    assert res[0] == res[1]


def test_nonzero_matches_torch():
    for shape in [(5,), (3, 4), (2, 3, 4), ()]:
        data = np.random.default_rng(1).integers(0, 2, shape)
        assert_same(ember.nonzero(ember.from_numpy(data.copy())), torch.nonzero(torch.from_numpy(data.copy())),
                    check_strides=len(shape) > 0)  # torch's strides for an empty 0-dim result are arbitrary


def test_index_put_functions_match_torch():
    res = []
    for m in (torch, ember):
        w = m.zeros(4, 3)
        labels = m.tensor([0, 2, 0])
        w.index_put_((labels,), m.ones(3, 3), accumulate=True)
        r = m.index_put(w, (labels, m.tensor([1, 1, 2])), m.tensor([5.0, 6.0, 7.0]))
        x = m.ones(2, 3, requires_grad=True)
        y = x.index_put((m.tensor([1]),), m.zeros(1, 3))
        y.sum().backward()
        res.append((w.tolist(), r.tolist(), y.grad_fn.name(), x.grad.tolist()))
    assert res[0] == res[1]


OPS = [
    "m.gather(x, 1, m.tensor([[0, 0], [1, 0], [3, 2]]))", "x.gather(0, m.tensor([[2, 1, 0, 0]]))",
    "x.gather(-1, m.tensor([[0, 1, 2, 3, 0]]))", "x.index_select(1, m.tensor([3, 0, 3]))",
    "m.index_select(x, 0, m.tensor(1))", "x.masked_fill(x > 5, -1.0)", "x.masked_fill(m.tensor([True, False, True, False]), 0.5)",
    "x.masked_fill(x > 5, m.tensor(2.0))", "x.clone().masked_fill_(x < 3, 9)",
    "x.gather(1, m.tensor([[5]]))", "x.gather(1, m.tensor([[0]], dtype=m.int32))", "x.gather(1, m.tensor([0]))",
    "x.index_select(1, m.tensor([[0]]))", "x.masked_fill(m.ones(4), 1.0)", "x.gather(1, m.tensor([[-1]]))",
]


@pytest.mark.parametrize("expr", OPS)
def test_gather_index_select_masked_fill_match_torch(expr):
    rt, et = outcome(lambda: eval(expr, {"m": torch, "x": torch.from_numpy(BASE[0].copy())}))
    re_, ee = outcome(lambda: eval(expr, {"m": ember, "x": ember.from_numpy(BASE[0].copy())}))
    assert (et is None) == (ee is None), (et, ee)
    if et is None:
        assert_same(re_, rt, check_strides=False)
    else:
        assert type(ee).__name__ == type(et).__name__, (ee, et)


@pytest.mark.parametrize("expr", ["x.gather(1, m.tensor([[0, 0], [1, 0], [3, 2]]))", "x.index_select(1, m.tensor([3, 0, 3]))",
                                  "x.masked_fill(x > 0, 0.0)"])
def test_gather_index_select_masked_fill_grads(expr):
    check_grads_vs_torch(expr, np.random.default_rng(6).standard_normal((3, 4)))

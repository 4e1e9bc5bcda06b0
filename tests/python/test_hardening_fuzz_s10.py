"""Regressions for issue 8's remaining differential-fuzzer findings (session 10), each against torch 2.13."""
import ast
import os
import sys
import warnings

import pytest
import torch

import ember
from conftest import assert_same

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz"))
import runner  # noqa: E402


def both(fn):
    return fn(ember), fn(torch)


def outcome(fn, m):
    """fn(m)'s result, or its exception type."""
    try:
        return fn(m)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)


# ---- var/std backward with N - correction <= 0

@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("correction", [2, 3, 4, 5])
@pytest.mark.parametrize("kw", [{}, {"dim": 0}, {"dim": (0, 1)}, {"dim": 1, "keepdim": True}])
@pytest.mark.parametrize("values", [[1.0, 2.0, 4.0], [2.0, 2.0, 2.0]])
def test_var_std_backward_without_degrees_of_freedom(fn, correction, kw, values):
    # torch: 2 / (N - correction) unclamped over given dims; with no dims, inf (nan where x is its mean)
    def grad(m):
        x = m.tensor(values).view(3, 1).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = getattr(m, fn)(x, correction=correction, **kw)
        (y[0] if isinstance(y, tuple) else y).sum().mul(-2).backward()
        return x.grad
    e, t = both(grad)
    assert_same(e.abs(), t.abs(), rtol=1e-6)  # (var_mean: torch's -0 where the mean's gradient adds +0 here)


# ---- huber_loss backward with mixed dtypes

@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"), ("float16", "float32")])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_huber_loss_backward_refuses_mixed_dtypes(dtypes, reduction):
    def fn(m):
        x = m.ones(3, dtype=getattr(m, dtypes[0]), requires_grad=True)
        y = m.nn.functional.huber_loss(x, m.zeros(3, dtype=getattr(m, dtypes[1])), reduction=reduction)
        y.sum().backward()
    legacy = {"float64": "Double", "float32": "Float", "float16": "Half"}
    with pytest.raises(RuntimeError, match=f"Found dtype {legacy[dtypes[1]]} but expected {legacy[dtypes[0]]}"):
        fn(ember)
    with pytest.raises(RuntimeError):
        fn(torch)


def test_smooth_l1_backward_takes_mixed_dtypes():
    def fn(m):
        x = m.tensor([0.5, 3.0], dtype=m.float64, requires_grad=True)
        m.nn.functional.smooth_l1_loss(x, m.zeros(2)).backward()
        return x.grad
    assert_same(*both(fn))


# ---- in-place unary ops save their target: a later in-place change of it fails backward

@pytest.mark.parametrize("op", ["exp_", "tanh_", "sigmoid_", "sqrt_", "rsqrt_"])
@pytest.mark.parametrize("through_view", [False, True])
def test_in_place_unary_result_is_version_checked(op, through_view):
    def fn(m):
        a = m.tensor([0.5, 1.5, 2.0], requires_grad=True)
        x = a.clone()
        y = x[1:] if through_view else x
        getattr(y, op)()
        y.add_(1)
        x.sum().backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        fn(ember)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        fn(torch)


def test_in_place_unary_result_unchanged_gives_the_gradient():
    def fn(m):
        a = m.tensor([0.5, 1.5, 2.0], requires_grad=True)
        x = a.clone()
        x.mul_(2).exp_()
        x.sum().backward()
        return a.grad
    assert_same(*both(fn))


# ---- an int tensor filled in place from a float that requires grad

@pytest.mark.parametrize("fill", ["masked_fill_", "fill_", "index_fill_"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_in_place_fill_of_an_int_tensor_from_a_graph_value(fill, dtype):
    # torch rebases the int tensor's history unchecked: it requires grad, and the next in-place op records too;
    # an out-of-place op on it then raises
    def fn(m):
        f = m.tensor([-1.0, 3.0], requires_grad=True)
        x = m.tensor([0, 1, 1], dtype=getattr(m, dtype))
        args = {"masked_fill_": (m.tensor([True, False, True]), f[0]), "fill_": (f[0],),
                "index_fill_": (0, m.tensor([1]), f[0])}[fill]
        getattr(x, fill)(*args)
        names = [x.grad_fn.name()]
        x.masked_fill_(m.tensor([False, True, False]), 0)
        names.append(x.grad_fn.name())
        return x.detach(), x.requires_grad, names, outcome(lambda m: x * 2, m), x.float().grad_fn.name()
    e, t = both(fn)
    assert_same(e[0], t[0])
    assert e[1:] == t[1:]


# ---- fuzz reproducers are valid Python whatever the message

def test_reproducer_scripts_escape_their_message(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "FOUND", str(tmp_path))
    program = [{"src": "r = m.tensor([1.0])", "out": "r", "op": "tensor"}]
    message = 'bad escape \\x and \\N{ and """ and \x00 and \u00e9: "quoted"\\'
    fail = runner.Failure("value", 7, program, 0, message)
    path = runner.write_reproducer(fail, 0)
    tree = ast.parse(open(path, encoding="utf-8").read())
    assert message in ast.get_docstring(tree)

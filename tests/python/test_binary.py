"""Binary arithmetic and comparisons against torch: every dtype pair, layouts, broadcasting,
Python scalars and 0-dim tensors (type promotion), in-place and out= casting rules."""
import itertools

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
TOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-12}

OPS = {
    "add": lambda m, a, b: a + b,
    "sub": lambda m, a, b: a - b,
    "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b,
    "add_alpha": lambda m, a, b: m.add(a, b, alpha=2),
    "pow": lambda m, a, b: a ** b,
    "remainder": lambda m, a, b: a % b,
    "floor_divide": lambda m, a, b: a // b,
    "fmod": lambda m, a, b: m.fmod(a, b),
    "atan2": lambda m, a, b: m.atan2(a, b),
    "maximum": lambda m, a, b: m.maximum(a, b),
    "minimum": lambda m, a, b: m.minimum(a, b),
    "fmax": lambda m, a, b: m.fmax(a, b),
    "fmin": lambda m, a, b: m.fmin(a, b),
    "eq": lambda m, a, b: a == b,
    "ne": lambda m, a, b: a != b,
    "lt": lambda m, a, b: a < b,
    "le": lambda m, a, b: a <= b,
    "gt": lambda m, a, b: a > b,
    "ge": lambda m, a, b: a >= b,
}

rng = np.random.default_rng(7)
VALUES = rng.integers(-4, 5, size=(3, 4)).astype(np.float64)
VALUES[VALUES == 0] = 3  # no division by zero in integer tests


def make(m, name, shape=(3, 4), layout="contiguous"):
    base = m.from_numpy(VALUES.copy()).to(getattr(m, name))
    if name == "uint8":
        base = m.from_numpy(np.abs(VALUES)).to(getattr(m, name))
    if layout == "transposed":
        return base.t().contiguous().t()
    if layout == "sliced":
        return m.from_numpy(np.repeat(np.abs(VALUES) if name == "uint8" else VALUES, 2, axis=1).copy()).to(
            getattr(m, name))[:, ::2]
    if layout == "row":
        return base[1]
    if layout == "column":
        return base[:, 1:2]
    if layout == "zero_dim":
        return base[1, 2]
    return base


def check(op, fa, fb):
    rt, et = outcome(lambda: OPS[op](torch, fa(torch), fb(torch)))
    re, ee = outcome(lambda: OPS[op](ember, fa(ember), fb(ember)))
    if et is not None:
        assert ee is not None, f"torch raised {et!r}, ember returned {re}"
        assert type(ee).__name__ == type(et).__name__
        return
    assert ee is None, f"ember raised {ee!r}"
    tol = TOL.get(str(rt.dtype).replace("torch.", ""), 0)
    assert_same(re, rt, rtol=tol, atol=tol)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, NAMES)))
def test_dtype_pairs(op, a, b):
    check(op, lambda m: make(m, a), lambda m: make(m, b, layout="transposed"))


LAYOUTS = ["contiguous", "transposed", "sliced", "row", "column", "zero_dim"]


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("la,lb", list(itertools.product(LAYOUTS, LAYOUTS)))
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_layouts_and_broadcasting(op, la, lb, dtype):
    check(op, lambda m: make(m, dtype, layout=la), lambda m: make(m, dtype, layout=lb))


SCALARS = [True, 3, -2, 2.5, 0.5]


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scalar", SCALARS)
def test_python_scalars(op, name, scalar):
    check(op, lambda m: make(m, name), lambda m: scalar)
    if op in ("add", "sub", "mul", "div", "pow", "remainder", "floor_divide"):
        rt, et = outcome(lambda: OPS[op](torch, scalar, make(torch, name)))
        re, ee = outcome(lambda: OPS[op](ember, scalar, make(ember, name)))
        assert (et is None) == (ee is None), (et, ee)
        if et is None:
            tol = TOL.get(str(rt.dtype).replace("torch.", ""), 0)
            assert_same(re, rt, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("other", ["float64_0dim", "int64_0dim", "float16_tensor"])
def test_zero_dim_tensors_promote_by_category(name, other):
    def make_other(m):
        if other == "float64_0dim":
            return m.tensor(1.5, dtype=m.float64)
        if other == "int64_0dim":
            return m.tensor(2, dtype=m.int64)
        return m.ones(4, dtype=m.float16)
    check("add", lambda m: make(m, name), make_other)
    check("mul", make_other, lambda m: make(m, name))


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_"])
@pytest.mark.parametrize("self_name", ["int64", "float32", "bool", "float16"])
@pytest.mark.parametrize("other", [1, 2.5, True, "int32", "float64"])
def test_in_place_casting(op, self_name, other):
    def run(m):
        x = make(m, self_name)
        y = make(m, other) if isinstance(other, str) else other
        before = x.clone()
        try:
            r = getattr(x, op)(y)
        except Exception as e:  # noqa: BLE001
            assert x.tolist() == before.tolist()
            return None, e
        assert r is x
        return x, None
    rt, et = run(torch)
    re, ee = run(ember)
    assert (et is None) == (ee is None), (et, ee)
    if et is not None:
        assert type(ee).__name__ == type(et).__name__ and str(ee) == str(et)
    else:
        tol = TOL.get(self_name, 0)
        assert_same(re, rt, rtol=tol, atol=tol)


def test_out_and_errors():
    for m in (ember, torch):
        out = m.empty(3, 4, dtype=m.float64)
        r = m.add(make(m, "int32"), make(m, "float32"), out=out)
        assert r is out
    assert_same(ember.add(make(ember, "int32"), 1.5, out=ember.empty(3, 4, dtype=ember.float64)),
                torch.add(make(torch, "int32"), 1.5, out=torch.empty(3, 4, dtype=torch.float64)))
    for code in ["m.ones(2, 3) + m.ones(3, 2)", "m.add(m.ones(3), m.ones(3), out=m.empty(3, dtype=m.int64))",
                 "m.ones(3, dtype=m.bool) - m.ones(3, dtype=m.bool)", "m.ones(3).expand(2, 3).add_(1)",
                 "m.arange(3).add(m.arange(3), alpha=0.5)", "m.ones(3) + 'a'", "m.ones(3, 1).add_(m.ones(1, 3))"]:
        et, ee = outcome(lambda: eval(code, {"m": torch})), outcome(lambda: eval(code, {"m": ember}))
        assert et[1] is not None and ee[1] is not None, code
        assert type(ee[1]).__name__ == type(et[1]).__name__, (code, ee[1], et[1])
        assert str(ee[1]).split("\n")[0][:40] == str(et[1]).split("\n")[0][:40], (code, ee[1], et[1])


def test_result_type_and_promote_types():
    for a, b in itertools.product(NAMES, NAMES):
        assert str(ember.promote_types(getattr(ember, a), getattr(ember, b))) == str(
            torch.promote_types(getattr(torch, a), getattr(torch, b)))
    for x, y in [(lambda m: m.ones(2, dtype=m.int8), 2.5), (lambda m: m.tensor(1.0, dtype=m.float64), 3),
                 (lambda m: m.ones(2, dtype=m.uint8), -1), (lambda m: m.ones(2, dtype=m.bool), True)]:
        assert str(ember.result_type(x(ember), y)) == str(torch.result_type(x(torch), y))
    assert ember.can_cast(ember.float32, ember.int64) == torch.can_cast(torch.float32, torch.int64)


@pytest.mark.parametrize("offset", [0, 1, 3])
def test_large_outputs_stream_correctly(offset):
    """Rows of 1 MB and more take the streaming-store path, including unaligned starts and tails."""
    n = 700_001
    a = np.random.default_rng(offset).standard_normal(n + offset).astype(np.float32)
    b = np.random.default_rng(offset + 9).standard_normal(n + offset).astype(np.float32)
    ea, eb = ember.from_numpy(a)[offset:], ember.from_numpy(b)[offset:]
    ta, tb = torch.from_numpy(a)[offset:], torch.from_numpy(b)[offset:]
    assert_same(ea + eb, ta + tb)
    assert_same(ea * eb, ta * tb)
    out_e, out_t = ember.zeros(n + 5)[offset:offset + n], torch.zeros(n + 5)[offset:offset + n]
    ember.add(ea, eb, out=out_e)
    torch.add(ta, tb, out=out_t)
    assert_same(out_e, out_t)


OUT_OPS = ["add", "sub", "mul", "div", "pow", "remainder", "floor_divide", "fmod", "atan2", "maximum", "minimum",
           "fmax", "fmin", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
           "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]


@pytest.mark.parametrize("op", OUT_OPS)
@pytest.mark.parametrize("a,out_dtype", [("float32", "float32"), ("int64", "int64"), ("int64", "float64"),
                                         ("float32", "bool"), ("bool", "bool"), ("float32", "int64")])
@pytest.mark.parametrize("out_shape", [(3, 4), (0,), (5,)])
def test_out_forms(op, a, out_dtype, out_shape):
    """ember.op(x, y, out=o) writes into o, resizing and casting (or refusing) exactly as torch does."""
    import warnings

    def run(m):
        out = m.zeros(out_shape, dtype=getattr(m, out_dtype))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = getattr(m, op)(make(m, a), make(m, a, layout="row"), out=out)
        assert r is out
        return out, len(caught)
    rt, et = outcome(lambda: run(torch))
    if et is not None:
        (_, ee) = outcome(lambda: run(ember))
        assert ee is not None and type(ee).__name__ == type(et).__name__, (ee, et)
        return
    (re_, we), (rt, wt) = run(ember), rt
    assert (we > 0) == (wt > 0)  # the resize warning for a non-empty out of the wrong shape
    tol = TOL.get(out_dtype, 0)
    assert_same(re_, rt, rtol=tol, atol=tol)


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge", "fmod", "atan2", "logical_and", "logical_or",
                                "logical_xor", "bitwise_left_shift", "bitwise_right_shift"])
@pytest.mark.parametrize("name", ["int64", "float32"])
def test_in_place_forms(op, name):
    def run(m):
        x = make(m, name).clone()
        r = getattr(x, op + "_")(make(m, name, layout="row"))
        assert r is x
        return x
    rt, et = outcome(lambda: run(torch))
    re_, ee = outcome(lambda: run(ember))
    if et is not None:
        assert ee is not None and type(ee).__name__ == type(et).__name__, (ee, et)
        return
    assert_same(re_, rt, rtol=TOL.get(name, 0), atol=TOL.get(name, 0))


def test_resize_():
    for m in (ember, torch):
        x = m.arange(6.0).view(2, 3)
        view = x[0]
        assert x.resize_(4, 4) is x and tuple(x.shape) == (4, 4) and x.stride() == (4, 1)
        assert x.view(-1)[:6].tolist() == list(range(6)) and view.tolist() == [0.0, 1.0, 2.0]
        x.resize_(2)
        assert x.tolist() == [0.0, 1.0]
    et, ee = outcome(lambda: torch.ones(2).resize_(-1)), outcome(lambda: ember.ones(2).resize_(-1))
    assert type(ee[1]) is type(et[1])

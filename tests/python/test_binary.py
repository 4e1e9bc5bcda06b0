"""Binary ops beyond the op database's samples (test_opdb_*.py: values, layouts, broadcasting, Python scalars,
type promotion, in-place and out= forms): in-place casting errors leave self untouched with torch's message,
out= resizing and its warning, promote_types/result_type, streaming stores of large outputs, resize_."""
import itertools

import numpy as np
import pytest
import torch

import ember
import opdb
from conftest import assert_same, outcome

TOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-12}
rng = np.random.default_rng(7)
VALUES = rng.integers(-4, 5, size=(3, 4)).astype(np.float64)
VALUES[VALUES == 0] = 3  # no division by zero in integer tests


def make(m, name, layout="contiguous"):
    base = m.from_numpy(np.abs(VALUES) if name == "uint8" else VALUES.copy()).to(getattr(m, name))
    return base[1] if layout == "row" else base


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
    for a, b in itertools.product(opdb.DTYPES, opdb.DTYPES):
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


OUT_OPS = sorted({op.torch_fn for op in opdb.BINARY if "out" in op.forms})


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

"""out= forms of the reductions, scans, softmax, products, indexing and composite ops against torch: every input dtype
into every out dtype (each op has its own rule: computed in out's dtype, out of the result's dtype exactly, any dtype
the result casts to, bool/uint8 only, int64 only), the tuple outs of max/min, autograd refusals and the
NotImplemented nodes of heaviside/floor_divide out=."""
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome

X = np.array([[1.5, 2.5, -1.0], [3.5, 4.5, 0.0]])
INPUT_DTYPES = ["float32", "int64", "bool", "float16"]
OUT_DTYPES = ["float32", "float64", "int64", "bool", "float16", "uint8"]


def tensor(m, dtype, values=X):
    return m.from_numpy(values.copy()).to(getattr(m, dtype))


def idx(m):
    return m.tensor([[0, 1, 1], [1, 0, 1]])


OPS = {  # name: f(m, x, out) with x of the case dtype
    "sum": lambda m, x, o: m.sum(x, 0, out=o),
    "sum_dtype": lambda m, x, o: m.sum(x, 1, keepdim=True, dtype=m.float64, out=o),
    "prod": lambda m, x, o: m.prod(x, 0, out=o),
    "mean": lambda m, x, o: m.mean(x, 0, out=o),
    "mean_dtype": lambda m, x, o: m.mean(x, (0, 1), dtype=m.float64, out=o),
    "amax": lambda m, x, o: m.amax(x, 0, out=o),
    "amin": lambda m, x, o: m.amin(x, (0, 1), keepdim=True, out=o),
    "all": lambda m, x, o: m.all(x, 0, out=o),
    "all_whole": lambda m, x, o: m.all(x, out=o),
    "any": lambda m, x, o: m.any(x, 1, out=o),
    "argmax": lambda m, x, o: m.argmax(x, 0, out=o),
    "argmin_whole": lambda m, x, o: m.argmin(x, out=o),
    "var": lambda m, x, o: m.var(x, 0, out=o),
    "std": lambda m, x, o: m.std(x, 1, correction=0, keepdim=True, out=o),
    "norm": lambda m, x, o: m.norm(x, 2, 0, out=o),
    "norm_whole": lambda m, x, o: m.norm(x, out=o),
    "logsumexp": lambda m, x, o: m.logsumexp(x, 0, out=o),
    "softmax": lambda m, x, o: m.softmax(x, 0, out=o),
    "softmax_dtype": lambda m, x, o: m.softmax(x, 1, dtype=m.float64, out=o),
    "log_softmax": lambda m, x, o: m.log_softmax(x, 1, out=o),
    "cumsum": lambda m, x, o: m.cumsum(x, 1, out=o),
    "cumsum_dtype": lambda m, x, o: m.cumsum(x, 0, dtype=m.float64, out=o),
    "cumprod": lambda m, x, o: m.cumprod(x, 1, out=o),
    "max_whole": lambda m, x, o: m.max(x, out=o),
    "min_whole": lambda m, x, o: m.min(x, out=o),
    "max_other": lambda m, x, o: m.max(x, x.flip(0), out=o),
    "mm_out": lambda m, x, o: m.mm(x, x.T, out=o),
    "bmm": lambda m, x, o: m.bmm(x[None], x.T[None], out=o),
    "matmul": lambda m, x, o: m.matmul(x, x.T, out=o),
    "matmul_vectors": lambda m, x, o: m.matmul(x[0], x[1], out=o),
    "mv": lambda m, x, o: m.mv(x, x[0], out=o),
    "dot": lambda m, x, o: m.dot(x[0], x[1], out=o),
    "vdot": lambda m, x, o: m.vdot(x[0], x[1], out=o),
    "outer": lambda m, x, o: m.outer(x[0], x[1], out=o),
    "ger": lambda m, x, o: m.ger(x[0], x[1], out=o),
    "inner": lambda m, x, o: m.inner(x, x, out=o),
    "addmm": lambda m, x, o: m.addmm(x[:, :2], x, x.T, out=o),
    "addmv": lambda m, x, o: m.addmv(x[:, 0], x, x[1], out=o),
    "baddbmm": lambda m, x, o: m.baddbmm(x[None, :, :2], x[None], x.T[None, :, :2], out=o),
    "addr": lambda m, x, o: m.addr(x[0, :, None] * x[1], x[0], x[1], out=o),
    "addbmm": lambda m, x, o: m.addbmm(x[:, :2], x[None], x.T[None, :, :2], out=o),
    "gather": lambda m, x, o: m.gather(x, 0, idx(m), out=o),
    "index_select": lambda m, x, o: m.index_select(x, 1, idx(m)[0], out=o),
    "where": lambda m, x, o: m.where(x > 1, x, x.flip(1), out=o),
    "clamp_numbers": lambda m, x, o: m.clamp(x, 0, 2, out=o),
    "clamp_min_number": lambda m, x, o: m.clamp(x, min=1, out=o),
    "clamp_tensors": lambda m, x, o: m.clamp(x, x[0], x[1], out=o),
    "clip": lambda m, x, o: m.clip(x, -0.5, 1.5, out=o),
    "lerp": lambda m, x, o: m.lerp(x, x.flip(0), 0.25, out=o),
    "round_decimals": lambda m, x, o: m.round(x, decimals=1, out=o),
    "gelu": lambda m, x, o: m.nn.functional.gelu(x, out=o),
    "gelu_tanh": lambda m, x, o: m.nn.functional.gelu(x, approximate="tanh", out=o),
    "softplus": lambda m, x, o: m.nn.functional.softplus(x, beta=2, out=o),
}


def run(m, name, dtype, out_dtype, out_shape=(0,)):
    x = tensor(m, dtype)
    out = m.zeros(out_shape, dtype=getattr(m, out_dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = OPS[name](m, x, out)
    assert r is out, "out= returned a new tensor"
    return out


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
@pytest.mark.parametrize("dtype", INPUT_DTYPES)
@pytest.mark.parametrize("name", list(OPS))
def test_out_dtype_rules(name, dtype, out_dtype):
    expected, texc = outcome(lambda: run(torch, name, dtype, out_dtype))
    got, eexc = outcome(lambda: run(ember, name, dtype, out_dtype))
    if texc is not None:
        assert eexc is not None, f"torch raised {texc!r}; ember returned {got}"
        assert type(eexc).__name__ == type(texc).__name__, f"ember raised {eexc!r}, torch {texc!r}"
        return
    assert eexc is None, f"ember raised {eexc!r}, torch returned"
    # a float16 computation is as exact as float16 in whichever dtype it lands (torch rounds some steps to it)
    tol = 2e-3 if "float16" in (dtype, out_dtype) else 1e-6
    assert_same(got, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "softmax", "cumsum", "mm_out", "gather", "where", "lerp",
                                  "clamp_numbers", "var", "logsumexp", "argmax", "all"])
def test_out_shapes_and_resize(name):
    """An empty out is resized; a non-empty out of the wrong shape is resized with torch's warning; out of the right
    shape is written in place (its strides kept)."""
    dtype = {"argmax": "int64", "all": "bool"}.get(name, "float32")
    right = run(torch, name, "float32", dtype).shape
    for shape in [(0,), (5, 5), tuple(right)]:
        with warnings.catch_warnings(record=True) as tw:
            warnings.simplefilter("always")
            t = run(torch, name, "float32", dtype, shape)
        with warnings.catch_warnings(record=True) as ew:
            warnings.simplefilter("always")
            e = run(ember, name, "float32", dtype, shape)
        assert_same(e, t, rtol=1e-6, atol=1e-6)
        assert bool([w for w in ew if "resized" in str(w.message)]) == bool([w for w in tw if "resized" in str(w.message)])


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "var", "norm", "logsumexp", "softmax", "cumsum", "max_whole",
                                  "mm_out", "matmul", "dot", "gather", "index_select", "where", "clamp_numbers",
                                  "clamp_tensors", "lerp", "gelu", "softplus", "round_decimals", "addmm", "outer",
                                  "argmax", "all", "any", "argmin_whole"])
def test_out_under_autograd(name):
    """Differentiable ops refuse out= when an input requires grad (RuntimeError); argmax/all/any do not, and softmax
    records torch's NotImplemented node."""
    def call(m):
        x = tensor(m, "float32").requires_grad_()
        dtype = {"argmax": "int64", "argmin_whole": "int64", "all": "bool", "any": "bool"}.get(name, "float32")
        out = m.empty(0, dtype=getattr(m, dtype))
        r = OPS[name](m, x, out)
        return r.detach()
    expected, texc = outcome(lambda: call(torch))
    got, eexc = outcome(lambda: call(ember))
    assert (texc is None) == (eexc is None), (texc, eexc)
    if texc is not None:
        assert type(eexc) is type(texc) and "out=" in str(eexc), eexc
    else:
        assert_same(got, expected, rtol=1e-6, atol=1e-6)


def test_max_min_tuple_out():
    for m in (torch, ember):
        x = tensor(m, "float32")
        v, i = m.empty(0), m.empty(0, dtype=m.int64)
        r = m.max(x, 1, out=(v, i))
        assert r[0] is v and r[1] is i and type(r).__name__ == "max_out"
        assert r.values is v and r.indices is i
    for name in ("max", "min"):
        for values, indices in [("float64", "int64"), ("float32", "int32")]:
            def call(m):
                return getattr(m, name)(tensor(m, "float32"), 0, True, out=(m.empty(0, dtype=getattr(m, values)),
                                                                         m.empty(0, dtype=getattr(m, indices))))
            _, texc = outcome(lambda: call(torch))
            _, eexc = outcome(lambda: call(ember))
            assert type(texc) is RuntimeError and type(eexc) is RuntimeError, (texc, eexc)
        e = getattr(ember, name)(tensor(ember, "float32"), 0, True, out=(ember.empty(0), ember.empty(0, dtype=ember.int64)))
        t = getattr(torch, name)(tensor(torch, "float32"), 0, True, out=(torch.empty(0), torch.empty(0, dtype=torch.int64)))
        assert_same(e.values, t.values)
        assert_same(e.indices, t.indices)
    with pytest.raises(TypeError, match="tuple of Tensors"):
        ember.max(tensor(ember, "float32"), 0, out=ember.empty(0))


def test_sum_whole_takes_no_out():
    """torch.sum(x, out=o) without dim is not one of torch's signatures: a TypeError in both."""
    for m in (torch, ember):
        with pytest.raises(TypeError):
            m.sum(tensor(m, "float32"), out=m.empty(0))


NOT_IMPLEMENTED_CASES = {
    "input grad": lambda m, x, v: dict(a=x, b=v, out=m.empty(3)),
    "other grad": lambda m, x, v: dict(a=v, b=x, out=m.empty(3)),
    "leaf out requires grad": lambda m, x, v: dict(a=v, b=v, out=m.empty(3, requires_grad=True)),
    "non-leaf out requires grad": lambda m, x, v: dict(a=v, b=v, out=m.empty(3, requires_grad=True).clone()),
    "empty out": lambda m, x, v: dict(a=x, b=v, out=m.empty(0)),
    "view out": lambda m, x, v: dict(a=x, b=v, out=m.empty(6)[::2]),
}


@pytest.mark.parametrize("case", list(NOT_IMPLEMENTED_CASES))
@pytest.mark.parametrize("op", ["heaviside", "floor_divide"])
def test_out_of_ops_without_derivative(op, case):
    """heaviside/floor_divide out= under autograd: torch's NotImplemented node on out (a view's base rebased),
    backward raising; a leaf out that requires grad is refused."""
    def call(m):
        x = m.tensor([0.0, 1.5, -2.0], requires_grad=True)
        v = m.tensor([0.5, 0.5, 3.0])
        kw = NOT_IMPLEMENTED_CASES[case](m, x, v)
        r = getattr(m, op)(kw["a"], kw["b"], out=kw["out"])
        assert r is kw["out"]
        return r
    t, texc = outcome(lambda: call(torch))
    e, eexc = outcome(lambda: call(ember))
    assert (texc is None) == (eexc is None), (texc, eexc)
    if texc is not None:
        assert type(eexc) is type(texc) and "out=" in str(eexc)
        return
    assert type(e.grad_fn).__name__ == type(t.grad_fn).__name__ and e.requires_grad == t.requires_grad
    assert_same(e.detach(), t.detach())
    with pytest.raises(RuntimeError):
        e.sum().backward()


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_out_records_not_implemented(op):
    for m in (torch, ember):
        x = tensor(m, "float32").requires_grad_()
        r = getattr(m, op)(x, 0, out=m.empty(0))
        assert type(r.grad_fn).__name__ == "NotImplemented" and r.requires_grad
        with pytest.raises(RuntimeError, match=f"derivative for aten::{op} is not implemented"):
            r.sum().backward()
        with pytest.raises(RuntimeError, match="out="):  # a leaf out that requires grad
            getattr(m, op)(x.detach(), 0, out=m.empty(0, requires_grad=True))


def test_truth_into_uint8_tests_each_element():
    """all/any into a uint8 out test each element's truth (torch converts a multi-element input to uint8 first, so
    its any([0.0, 0.5]) is 0: a torch bug Ember does not copy, listed in tests/fuzz/known.py)."""
    x = ember.tensor([0.0, 0.5])
    assert ember.any(x, out=ember.empty(0, dtype=ember.uint8)).item() == 1
    assert ember.all(ember.tensor([0.5, 256.0]), out=ember.empty(0, dtype=ember.uint8)).item() == 1
    assert torch.any(torch.tensor([0.5])).item() and ember.any(ember.tensor([0.5]), 0, out=ember.empty(0, dtype=ember.uint8)).item() == 1

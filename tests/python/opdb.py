"""The test op database (like PyTorch's OpInfo): one entry per op, read by test_opdb_*.py.

An entry names the op (where it lives in torch and in ember), yields its sample inputs, and declares the dtypes
torch supports for it, tolerances, gradient support and known discrepancies (strict xfails naming a reproducer).
The forms to test (function, method, in-place, out=) are the ones torch has; ember must have each of them.
Adding an op = adding one entry to OPS. The drivers call `run_case`, whose exception rule is: the callables are
looked up first (a missing op fails the test), and a case passes on an exception only when torch raised the same
exception type."""
import functools
import importlib
import itertools
import operator
import pathlib
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
INTEGRAL = ("bool",) + INTS
NUMERIC = INTS + FLOATS  # all but bool
TOL = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1e-5, 1e-6), "float64": (1e-12, 1e-14)}
LAYOUTS = ("contiguous", "transposed", "expanded", "offset")
SPECIAL = [np.inf, -np.inf, np.nan, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.999, -0.999, 1e-30, -1e-30, 10.0, -10.0,
           88.0, -88.0, 1e6, -1e6]


class T:
    """A tensor argument: values, logical shape and memory layout, built identically in ember and torch.
    layout: contiguous; transposed (dims 0 and -1 swapped in memory); expanded (stride 0 along dim 0);
    offset (storage offset 1, stride 2 along the last dim)."""

    def __init__(self, shape, layout="contiguous", *, low=-3.0, high=3.0, seed=0, dtype=None, values=None,
                 nonzero=False):
        self.shape, self.layout, self.dtype, self.nonzero = tuple(shape), layout, dtype, nonzero
        self.low, self.high, self.seed = low, high, seed
        self.values = None if values is None else tuple(values)

    def __repr__(self):
        dtype = f":{self.dtype}" if self.dtype else ""
        shape = "x".join(map(str, self.shape)) or "0dim"
        return f"{'special' if self.values is not None else self.layout}{shape}{dtype}"

    def array(self, dtype):
        kind = "float" if dtype in FLOATS else "uint8" if dtype == "uint8" else "int"
        return _values(self.shape, self.layout, self.low, self.high, self.seed, self.values, self.nonzero, kind)

    def build(self, m, dtype):
        dtype = self.dtype or dtype
        a = self.array(dtype)

        def make(arr):
            # np.array: a C-order copy that keeps 0-dim arrays 0-dim (ascontiguousarray makes them 1-dim)
            return m.from_numpy(np.array(arr, dtype=np.float64, order="C")).to(getattr(m, dtype))
        if a.ndim == 0 or self.layout == "contiguous":
            return make(a)
        if self.layout == "transposed":
            return make(np.swapaxes(a, 0, -1)).transpose(0, -1)
        if self.layout == "expanded":
            return make(a[:1]).expand(*a.shape)
        big = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,))
        big[..., 1::2] = a
        return make(big)[..., 1::2]


@functools.lru_cache(maxsize=None)
def _values(shape, layout, low, high, seed, values, nonzero, kind):
    """The logical values of a T (float64; rounded for integer dtypes, non-negative for uint8), shared."""
    if values is not None:
        a = np.array(values, dtype=np.float64).reshape(shape)
    else:
        a = np.random.default_rng(seed).uniform(low, high, shape)
    if layout == "expanded" and a.ndim:
        a = np.broadcast_to(a[:1], a.shape)
    if kind != "float":
        a = np.round(np.abs(a) if kind == "uint8" else a)
    if nonzero:
        a = np.where(a == 0, 2.0, a)
    return a


class D:
    """A dtype argument (softmax(..., dtype=float64)), resolved in each library."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


class Sample:
    """Positional and keyword arguments of one call; `raises`: torch is expected to raise for it."""

    def __init__(self, *args, raises=False, **kwargs):
        self.args, self.kwargs, self.raises = args, kwargs, raises
        self.name = ",".join([_describe(a) for a in args] + [f"{k}={_describe(v)}" for k, v in kwargs.items()])

    def build(self, m, dtype, requires_grad=False):
        """(args, kwargs) in library m; requires_grad: tensors of the case dtype become leaves requiring grad."""
        return ([_build(a, m, dtype, requires_grad) for a in self.args],
                {k: _build(v, m, dtype, requires_grad) for k, v in self.kwargs.items()})

    def tensors(self):
        return [a for a in _flat(self.args) if isinstance(a, T)]


def _describe(a):
    return f"[{','.join(map(_describe, a))}]" if isinstance(a, list) else repr(a)


def _build(a, m, dtype, requires_grad=False):
    if isinstance(a, T):
        t = a.build(m, dtype)
        return t.detach().requires_grad_() if requires_grad and a.dtype is None else t
    if isinstance(a, D):
        return getattr(m, a.name)
    if isinstance(a, list):
        return [_build(x, m, dtype, requires_grad) for x in a]
    return a


def _flat(args):
    for a in args:
        yield from (_flat(a) if isinstance(a, list) else [a])


class XFail:
    """A known discrepancy with ember: the cases it matches (dtype in dtypes, a `sample` substring in the sample's
    name, form in forms; None matches all) are strict xfails. `reason` names the reproducer."""

    def __init__(self, reason, dtypes=None, sample=None, forms=None):
        self.reason, self.dtypes, self.sample, self.forms = reason, dtypes, sample, forms

    def matches(self, dtype, sample_name, form):
        samples = (self.sample,) if isinstance(self.sample, str) else self.sample  # substrings, any of them
        return ((self.dtypes is None or dtype in self.dtypes) and (self.forms is None or form in self.forms)
                and (samples is None or any(s in sample_name for s in samples)))


def resolve(m, path):
    """m.<path> (dotted); a missing op is a test failure, never a matching exception."""
    obj = m
    for part in path.split("."):
        if not hasattr(obj, part):
            raise AssertionError(f"{m.__name__}.{path} does not exist")
        obj = getattr(obj, part)
    return obj


class OpInfo:
    """One op. torch_fn: its function under torch (None: method only); ember_fn: under ember (default: the
    last part of torch_fn). The method, in-place and out= forms are tested where torch has them; `missing`
    lists forms ember lacks (each a strict xfail of the meta-test). samples(dtype) yields Samples; dtypes: those
    torch supports; tol: {dtype: (rtol, atol)} over TOL; grad: differentiable in its tensor arguments of the
    case dtype (float64 in the gradient tests); operator: the Python operator, also tried with a Python number
    on the left; promotion(dtype): the type promotion samples of a binary op."""

    def __init__(self, name, samples, *, torch_fn="", ember_fn=None, method="", dtypes=tuple(DTYPES), grad=False,
                 tol=None, check_strides=True, xfails=(), operator=None, missing=(), promotion=None):
        self.name, self.samples, self.dtypes, self.grad = name, samples, tuple(dtypes), grad
        self.torch_fn = name if torch_fn == "" else torch_fn
        self.ember_fn = ember_fn or (self.torch_fn and self.torch_fn.split(".")[-1])
        self.method_name = (self.torch_fn or name).split(".")[-1] if method == "" else method
        self.tol, self.check_strides, self.xfails = dict(TOL, **(tol or {})), check_strides, tuple(xfails)
        self.operator, self.missing, self.promotion = operator, set(missing), promotion

    def __repr__(self):
        return self.name

    @functools.cached_property
    def forms(self):
        """The forms torch has: fn, method, inplace, out."""
        found = []
        if self.torch_fn:
            found.append("fn")
        if self.method_name and hasattr(torch.Tensor, self.method_name):
            found.append("method")
            if hasattr(torch.Tensor, self.method_name + "_"):
                found.append("inplace")
        if self.torch_fn and self._torch_takes_out():
            found.append("out")
        return found

    def _torch_takes_out(self):
        sample = next(iter(self.samples(self.dtypes[-1])))
        args, kwargs = sample.build(torch, self.dtypes[-1])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch.ger's deprecation
                resolve(torch, self.torch_fn)(*args, out=torch.empty(0), **kwargs)
        except TypeError:
            return False
        except Exception:  # noqa: BLE001 - an out= form that refuses this dtype or layout
            pass
        return True

    def callable(self, m, form):
        """The callable for one form: f(*args, **kwargs)."""
        if form == "fn":
            return resolve(m, self.torch_fn if m is torch else self.ember_fn)
        if form == "operator":
            return self.operator
        if form == "out":
            fn = self.callable(m, "fn")
            return lambda *a, **k: _call_out(m, fn, a, k)
        name = self.method_name + ("_" if form == "inplace" else "")
        resolve(m, f"Tensor.{name}")
        if form == "inplace":
            return lambda self_, *a, **k: _call_inplace(self_, name, a, k)
        return lambda self_, *a, **k: getattr(self_, name)(*a, **k)

    def xfail(self, dtype, sample_name, form):
        return next((x for x in self.xfails if x.matches(dtype, sample_name, form)), None)


def _call_inplace(self_, name, args, kwargs):
    x = self_.clone()
    result = getattr(x, name)(*args, **kwargs)
    assert result is x, f"{name} returned a new tensor"
    return x


def _call_out(m, fn, args, kwargs):
    dtype = kwargs.pop("out_dtype")
    out = m.empty(0, dtype=getattr(m, dtype))
    result = fn(*args, out=out, **kwargs)
    assert result is out, "out= returned a new tensor"
    return out


def compare(op, e, t, tol_dtype=None):
    """ember result `e` equals torch result `t` (tensors, tuples of them, or Python values)."""
    if isinstance(t, torch.Tensor):
        rtol, atol = op.tol.get(tol_dtype or str(t.dtype)[6:], (0, 0))
        assert_same(e, t, check_strides=op.check_strides, rtol=rtol, atol=atol)
    elif isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)) and len(e) == len(t), (e, t)
        for a, b in zip(e, t):
            compare(op, a, b, tol_dtype)
    else:
        assert e == t or (e != e and t != t), (e, t)


def run_case(op, dtype, sample, form, out_dtype=None, declared=True):
    """One call in both libraries. Passes when both return the same, or both raise the same exception type.
    declared: the sample comes from the entry, so in a dtype it declares supported torch must not raise (unless
    the sample says so): a wrong table entry fails instead of passing on two matching exceptions."""
    fe, ft = op.callable(ember, form), op.callable(torch, form)  # a missing op fails here
    (ea, ek), (ta, tk) = sample.build(ember, dtype), sample.build(torch, dtype)
    tol_dtype = None
    if form == "out":
        expected, _ = outcome(lambda: op.callable(torch, "fn")(*ta, **tk))
        if isinstance(expected, tuple):
            return  # several outputs: out= takes a tuple, not tried here
        tol_dtype = str(expected.dtype)[6:] if expected is not None else dtype  # the precision computed in
        ek, tk = dict(ek, out_dtype=out_dtype or tol_dtype), dict(tk, out_dtype=out_dtype or tol_dtype)
    rt, et = outcome(lambda: ft(*ta, **tk))
    re_, ee = outcome(lambda: fe(*ea, **ek))
    checked = declared and dtype in op.dtypes and form == forms_for(op, sample)[0]  # the function, or method
    if et is not None:
        assert not checked or sample.raises, f"database: torch raised {et!r} for a sample declared valid"
        assert ee is not None, f"torch raised {type(et).__name__}: {et}; ember returned {re_}"
        assert type(ee).__name__ == type(et).__name__, f"ember raised {ee!r}, torch {et!r}"
        return
    assert not (checked and sample.raises), "database: sample declared raising, torch returned"
    assert ee is None, f"ember raised {ee!r}, torch returned"
    compare(op, re_, rt, tol_dtype)


def forms_for(op, sample):
    """The forms a sample is tried in, the function first; a Python number as first argument only goes through
    the operator."""
    if not isinstance(sample.args[0], (T, list)):
        return ["operator"] if op.operator else []
    return [f for f in op.forms if f not in op.missing] + (["operator"] if op.operator else [])


def cases(op, dtype):
    """(sample, form, out_dtype) for one op and dtype: every sample as a function (or operator); the first and
    every third from the second (transposed, broadcast, 0-dim, ...) in every form; the first also into out=
    tensors of other dtypes."""
    for i, sample in enumerate(op.samples(dtype)):
        forms = forms_for(op, sample)
        for form in forms if i == 0 or i % 3 == 1 else forms[:1]:
            yield sample, form, None
            if form == "out" and i == 0:
                for out_dtype in ("float64", "int64", "bool"):
                    yield sample, form, out_dtype


def case_id(sample, form, out_dtype=None):
    return f"{form}{'->' + out_dtype if out_dtype else ''}({sample.name})"


@pytest.fixture(autouse=True, scope="module")
def torch_one_thread():
    """torch's OpenMP threads spin for milliseconds per tiny op on this shared 2-core machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def params(op, dtype, group):
    """pytest params for one group of (sample, form, out_dtype) cases: one running every case that is not a
    known discrepancy, and one strict xfail per case an XFail of the entry matches."""
    plain = [c for c in group if not op.xfail(dtype, c[0].name, c[1])]
    yield pytest.param(op, dtype, plain, id=f"{op.name}-{dtype}")
    for c in group:
        x = op.xfail(dtype, c[0].name, c[1])
        if x:
            yield pytest.param(op, dtype, [c], id=f"{op.name}-{dtype}-{case_id(*c)}",
                               marks=pytest.mark.xfail(strict=True, reason=x.reason))


def run_group(op, dtype, group, runner=None, **kw):
    """Every case of a group (run_case, or `runner`); the failures are reported together."""
    failures = []
    for sample, form, out_dtype in group:
        try:
            (runner or run_case)(op, dtype, sample, form, out_dtype, **kw)
        except Exception as e:  # noqa: BLE001 - collected and reported below
            failures.append(f"{case_id(sample, form, out_dtype)}: {type(e).__name__}: {e}")
    assert not failures, f"{len(failures)} of {len(group)} cases of {op.name} in {dtype} differ:\n" + \
        "\n".join(failures)


def differentiable_call(op, m, dtype, sample):
    """(leaves, outputs requiring grad, rebuild) for the sample's tensors of the case dtype made leaves;
    rebuild(*leaves) calls the op again on other leaves (for gradcheck)."""
    args, kwargs = sample.build(m, dtype, requires_grad=True)
    leaves = [t for t in _flat(list(args) + list(kwargs.values())) if _is_tensor(t) and t.requires_grad]
    fn = op.callable(m, forms_for(op, sample)[0])

    def rebuild(*new):
        swap = {id(old): n for old, n in zip(leaves, new)}
        sub = lambda a: [sub(x) for x in a] if isinstance(a, list) else swap.get(id(a), a)  # noqa: E731
        out = fn(*[sub(a) for a in args], **{k: sub(v) for k, v in kwargs.items()})
        return tuple(o for o in (out if isinstance(out, tuple) else (out,)) if o.requires_grad)
    return leaves, rebuild(*leaves), rebuild


def _is_tensor(t):
    return isinstance(t, (torch.Tensor, ember.Tensor))


def run_grad_case(op, dtype, sample, form="grad", out_dtype=None):
    """Gradients of every differentiable output (for a fixed upstream) w.r.t. every leaf, ember against torch;
    the exception rule of run_case."""
    def grads(m):
        leaves, outs, _ = differentiable_call(op, m, dtype, sample)
        ups = [m.from_numpy(np.linspace(-1, 1, o.numel()).reshape(tuple(o.shape))).to(o.dtype) for o in outs]
        return outs, (m.autograd.grad(outs, leaves, ups, allow_unused=True) if outs else ())
    expected, et = outcome(lambda: grads(torch))
    got, ee = outcome(lambda: grads(ember))
    if et is not None:
        assert ee is not None and type(ee).__name__ == type(et).__name__, f"ember {ee!r}, torch raised {et!r}"
        return
    assert ee is None, f"ember raised {ee!r}, torch returned"
    (touts, tgrads), (eouts, egrads) = expected, got
    assert len(eouts) == len(touts), f"{len(eouts)} differentiable outputs, torch {len(touts)}"
    for e, t in zip(egrads, tgrads):
        assert (e is None) == (t is None), (e, t)
        if t is not None:
            rtol, atol = op.tol[dtype]
            assert_same(e, t, check_strides=False, rtol=rtol, atol=max(atol, 1e-12))


# ---- sample generators ------------------------------------------------------------------------------------

def unary_samples(low=-3.0, high=3.0, **kw):
    def gen(dtype):
        for layout in LAYOUTS:
            yield Sample(T((3, 4), layout, low=low, high=high), **kw)
        yield Sample(T((), low=low, high=high), **kw)
        yield Sample(T((0, 3)), **kw)
        if dtype in FLOATS:
            yield Sample(T((len(SPECIAL),), values=SPECIAL), **kw)
        elif dtype != "bool":
            info = np.iinfo(dtype)
            yield Sample(T((4,), values=[info.min, info.max, -1 if info.min else 0, 1]), **kw)
    return gen


def binary_samples(low=-3.0, high=3.0, rhs_low=None, rhs_high=None, nonzero=False, scalars=(3, -2, 2.5, True),
                   scalar_raises=lambda dtype, s, left: False, left_scalars=True, **kw):
    """Pairs of layouts, broadcasting, 0-dim and empty operands, Python numbers on either side."""
    lo, hi = (low if rhs_low is None else rhs_low), (high if rhs_high is None else rhs_high)

    def a(shape, layout="contiguous"):
        return T(shape, layout, low=low, high=high, seed=1)

    def b(shape, layout="contiguous", seed=2):
        return T(shape, layout, low=lo, high=hi, seed=seed, nonzero=nonzero)

    def gen(dtype):
        yield Sample(a((3, 4)), b((3, 4)), **kw)
        yield Sample(a((3, 4), "transposed"), b((3, 4), "offset"), **kw)
        yield Sample(a((3, 4), "offset"), b((3, 4), "expanded"), **kw)
        yield Sample(a((3, 4), "expanded"), b((3, 4), "transposed"), **kw)
        yield Sample(a((3, 4)), b((4,)), **kw)
        yield Sample(a((3, 1)), b((1, 4), "transposed"), **kw)
        yield Sample(a((2, 1, 4)), b((3, 1)), **kw)
        yield Sample(a((3, 4)), b(()), **kw)
        yield Sample(a(()), b((3, 4), "transposed"), **kw)
        yield Sample(a(()), b((), seed=3), **kw)
        yield Sample(a((0, 4)), b((4,)), **kw)
        yield Sample(a((3, 4), "transposed"), b((3, 4), "transposed"), **kw)  # the output keeps their layout
        yield Sample(a((3, 4), "offset"), b(()), **kw)
        yield Sample(a((4,), "offset"), b((3, 4), "expanded"), **kw)
        yield Sample(a((3, 1), "expanded"), b((3, 4), "offset"), **kw)
        for s in scalars:
            yield Sample(a((3, 4), "transposed"), s, raises=scalar_raises(dtype, s, False), **kw)
            if left_scalars:
                yield Sample(s, b((3, 4)), raises=scalar_raises(dtype, s, True), **kw)
    return gen


def promotion_samples(nonzero=False, scalars=(), left_scalars=False, **kw):
    """Type promotion: a tensor of dtype `a` with a tensor and a 0-dim tensor (on either side) of every dtype,
    and with Python numbers."""
    def gen(a):
        x = T((3, 4), dtype=a, seed=1)
        for b in DTYPES:
            yield Sample(x, T((3, 4), "transposed", dtype=b, seed=2, nonzero=nonzero), **kw)
            yield Sample(x, T((), dtype=b, seed=3, nonzero=nonzero), **kw)
            yield Sample(T((), dtype=b, seed=3), T((4,), dtype=a, seed=2, nonzero=nonzero), **kw)
        for s in scalars:
            yield Sample(x, s, **kw)
            if left_scalars:
                yield Sample(s, T((3, 4), dtype=a, seed=2, nonzero=nonzero), **kw)
    return gen


def reduction_samples(dims=(None, 0, 1, -1, (0, 2), (2, 0, 1), ()), keepdim=True, extra=(), low=-3.0, high=3.0,
                      empty_raises=False, positional=True):
    """Each dim (None: the call without one) in every layout (and with keepdim in two), `extra` kwargs dicts,
    0-dim and empty inputs. positional=False passes dim as a keyword (norm's second argument is p)."""
    def call(x, dim, keep=False, raises=False, **kw):
        if dim is None:
            return Sample(x, raises=raises, **kw)
        if keep or not positional:
            return Sample(x, dim=dim, raises=raises, **(dict(keepdim=True) if keep else {}), **kw)
        return Sample(x, dim, raises=raises, **kw)

    def gen(dtype):
        for dim in dims:
            for layout in LAYOUTS:
                x = T((3, 4, 5), layout, low=low, high=high)
                yield call(x, dim)
                if keepdim and dim is not None and layout in ("contiguous", "transposed"):
                    yield call(x, dim, True)
            for kw in extra:
                yield call(T((3, 4, 5), "offset", low=low, high=high), dim, **kw)
        yield call(T((), low=low, high=high), dims[0])
        yield call(T((), low=low, high=high), -1)
        yield call(T((0, 3)), 1)
        yield call(T((0, 3)), 0, raises=empty_raises)
        yield call(T((2, 0)), -1, raises=empty_raises)
        if dims[0] is None:
            yield call(T((0, 3)), None, raises=empty_raises)
    return gen


def fixed(*samples):
    """The same samples for every dtype."""
    return lambda dtype: iter(samples)


# ---- the database -----------------------------------------------------------------------------------------

def unary(name, dtypes=DTYPES, low=-3.0, high=3.0, grad=True, **kw):
    return OpInfo(name, unary_samples(low, high, **kw.pop("sample_kwargs", {})), dtypes=dtypes, grad=grad, **kw)


NAN_TO_NUM_EMPTY = XFail("x = ember.from_numpy(np.zeros((0, 3))); ember.nan_to_num(x).stride() is (3, 1), "
                         "torch's (0, 0)", FLOATS, sample="contiguous0x3", forms=("fn", "method"))
UNARY = [
    *[unary(n) for n in ("exp", "exp2", "expm1", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "sigmoid",
                         "erf", "erfc")],
    *[unary(n, low=0.1, high=3.0) for n in ("log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal")],
    *[unary(n, low=-0.95, high=0.95) for n in ("asin", "acos")],
    unary("silu", FLOATS, torch_fn="nn.functional.silu"),
    unary("gelu_erf", FLOATS, torch_fn="nn.functional.gelu"),
    unary("gelu_tanh", FLOATS, torch_fn="nn.functional.gelu", sample_kwargs={"approximate": "tanh"}),
    unary("frac", FLOATS),
    unary("abs", NUMERIC, operator=abs), unary("neg", NUMERIC, operator=operator.neg),
    *[unary(n, NUMERIC) for n in ("floor", "ceil", "trunc", "round", "relu")],
    unary("sign"), unary("square"),
    unary("bitwise_not", INTEGRAL, grad=False, operator=operator.invert),
]
UNARY += [
    unary("logical_not", grad=False),
    unary("isnan", grad=False, xfails=[XFail(
        "ember.isnan(ember.from_numpy(np.zeros((0, 3))).long()).stride() is (0, 0), torch's (3, 1)",
        INTEGRAL, sample="contiguous0x3")]),
    *[unary(n, grad=False) for n in ("isinf", "isfinite")],
    unary("nan_to_num", xfails=[NAN_TO_NUM_EMPTY]),
    unary("nan_to_num_args", torch_fn="nan_to_num", sample_kwargs={"nan": 1.5, "posinf": 5.0, "neginf": -4.0},
          xfails=[NAN_TO_NUM_EMPTY]),
    unary("round_decimals", FLOATS, torch_fn="round", sample_kwargs={"decimals": 2}, missing=("inplace",)),
    unary("round_decimals_negative", FLOATS, torch_fn="round", sample_kwargs={"decimals": -1},
          missing=("inplace",)),
    unary("softplus", FLOATS, torch_fn="nn.functional.softplus"),
    unary("softplus_args", FLOATS, torch_fn="nn.functional.softplus", sample_kwargs={"beta": 2, "threshold": 3}),
    unary("clone"),
    unary("contiguous", torch_fn=None),
]


def binary(name, dtypes=DTYPES, *, grad=True, op=None, nonzero=False, scalars=(3, -2, 2.5, True), extra=None,
           low=-3.0, high=3.0, rhs_low=None, rhs_high=None, scalar_raises=lambda dtype, s, left: False, **kw):
    """A binary op entry: binary_samples and promotion_samples; nonzero: no zeros on the right (integer
    division); extra: kwargs of every call (alpha, rounding_mode)."""
    extra = extra or {}
    samples = binary_samples(low, high, rhs_low, rhs_high, nonzero, scalars, scalar_raises, op is not None, **extra)
    return OpInfo(name, samples, dtypes=dtypes, grad=grad, operator=op,
                  promotion=promotion_samples(nonzero, scalars, op is not None, **extra), **kw)


def _int_negative_power(dtype, s, left):
    return not left and dtype in INTEGRAL and s is not True and isinstance(s, int) and s < 0


BINARY = [
    binary("add", op=operator.add), binary("add_alpha", torch_fn="add", extra={"alpha": 2}),
    binary("sub", NUMERIC, op=operator.sub, scalars=(3, -2, 2.5)),
    binary("sub_alpha", NUMERIC, torch_fn="sub", scalars=(3, -2, 2.5), extra={"alpha": 2}),
    binary("mul", op=operator.mul),
    binary("div", op=operator.truediv, nonzero=True),
    binary("div_trunc", NUMERIC, torch_fn="div", nonzero=True, extra={"rounding_mode": "trunc"}),
    binary("div_floor", NUMERIC, torch_fn="div", nonzero=True, extra={"rounding_mode": "floor"}),
    # no True exponent: torch's backward of True ** x fails an internal assert (unknown ivalue tag 4)
    binary("pow", NUMERIC, op=operator.pow, low=0.2, rhs_low=0.0, rhs_high=3.0, scalars=(3, -2, 2.5),
           scalar_raises=_int_negative_power),
    binary("remainder", NUMERIC, op=operator.mod, nonzero=True),
    binary("floor_divide", NUMERIC, op=operator.floordiv, nonzero=True, grad=False),
    binary("fmod", NUMERIC, nonzero=True),
    binary("atan2", scalars=()),
    binary("copysign"),
    *[binary(n, scalars=()) for n in ("maximum", "minimum", "fmax", "fmin")],
    *[binary(n, INTEGRAL, grad=False, op=o, scalars=(3, -2, True))
      for n, o in (("bitwise_and", operator.and_), ("bitwise_or", operator.or_), ("bitwise_xor", operator.xor))],
    *[binary(n, INTS, grad=False, op=o, rhs_low=0.0, rhs_high=5.0, scalars=(3, True))
      for n, o in (("bitwise_left_shift", operator.lshift), ("bitwise_right_shift", operator.rshift))],
    *[binary(n, grad=False, scalars=()) for n in ("logical_and", "logical_or", "logical_xor")],
    *[binary(n, grad=False, op=getattr(operator, n)) for n in ("eq", "ne", "lt", "le", "gt", "ge")],
]


def reduction(name, dtypes=DTYPES, grad=True, tol=None, more=(), **kw):
    """A reduction entry; `more`: samples beyond reduction_samples' (positional p of norm, ...)."""
    sample_kw = {k: kw.pop(k) for k in list(kw) if k in ("dims", "keepdim", "extra", "low", "high", "empty_raises",
                                                          "positional")}
    gen = reduction_samples(**sample_kw)
    return OpInfo(name, lambda dtype: itertools.chain(gen(dtype), more), dtypes=dtypes, grad=grad, check_strides=False,
                  tol=dict({"float16": (2e-3, 1e-2), "bfloat16": (1.6e-2, 1e-1), "float32": (1e-5, 1e-5),
                            "float64": (1e-12, 1e-12)}, **(tol or {})), **kw)


INT_DIMS = (None, 0, -1)
STD_OF_CONSTANT = XFail("ember.full((3, 2), -1.3812797174167781, dtype=ember.float64).std(0) is 2.7e-16, torch's 0.0 "
                        "(exact for a constant column), so the gradient (x - mean) / std differs",
                        ("float64",), sample=("expanded3x4x5,0", "expanded3x4x5,dim=0,"), forms=("grad",))
VAR_ALL_DIMS = XFail("x = ember.tensor([1.0, 2.0, 4.0], dtype=ember.float64, requires_grad=True); "
                     "x.var(()).backward(); x.grad is [-1.33, -0.33, 1.67], torch's [-inf, -inf, inf] (its "
                     "backward divides by 0 for dim=())",
                     sample="()", forms=("grad",))
F64 = {"dtype": D("float64")}
REDUCTIONS = [
    reduction("sum", extra=(F64,)), reduction("mean", FLOATS, extra=(F64,)),
    reduction("prod", dims=INT_DIMS, extra=(F64,)),
    reduction("amax", empty_raises=True), reduction("amin", empty_raises=True),
    reduction("all", grad=False), reduction("any", grad=False),
    reduction("argmax", NUMERIC, grad=False, dims=INT_DIMS, empty_raises=True),
    reduction("argmin", NUMERIC, grad=False, dims=INT_DIMS, empty_raises=True),
    reduction("max", dims=INT_DIMS, empty_raises=True),
    reduction("min", dims=INT_DIMS, empty_raises=True),
    reduction("var", FLOATS, extra=({"correction": 2}, {"unbiased": False}), xfails=[VAR_ALL_DIMS]),
    reduction("std", FLOATS, extra=({"correction": 0},), xfails=[VAR_ALL_DIMS, STD_OF_CONSTANT]),
    reduction("var_mean", FLOATS, extra=({"correction": 0},), method=None, xfails=[VAR_ALL_DIMS]),
    reduction("std_mean", FLOATS, method=None, xfails=[VAR_ALL_DIMS, STD_OF_CONSTANT]),
    reduction("norm", FLOATS, positional=False, dims=(None, 0, -1, (0, 2), ()),
              extra=({"p": 1}, {"p": float("inf")}, {"p": 3}),
              more=[Sample(T((3, 4, 5)), 1), Sample(T((3, 4, 5), "transposed"), float("inf"), 1),
                    Sample(T((3, 4, 5)), 3, (0, 2), True)]),
    reduction("logsumexp", dims=(-1, 1, (0, 2))),
    reduction("count_nonzero", grad=False, dims=(None, 0, (0, 2)), keepdim=False),
    reduction("cumsum", dims=(0, -1), keepdim=False, extra=(F64,)),
    reduction("cumprod", dims=(0, -1), keepdim=False, extra=(F64,), low=0.5, high=1.5),
    reduction("softmax", FLOATS, dims=(0, -1), keepdim=False, extra=(F64,)),
    reduction("log_softmax", FLOATS, dims=(0, -1), keepdim=False, extra=(F64,)),
]


def x34(layout="contiguous", **kw):
    return T((3, 4), layout, **kw)


def clamp_samples(dtype):
    yield from (Sample(x34(), -1, 1), Sample(x34("transposed"), min=0.5), Sample(x34("offset"), max=0.25),
                Sample(T(()), -1, 1), Sample(T((0, 4)), 0, 1), Sample(x34(), 2, 1))
    yield Sample(x34(), min=T((4,), seed=3))
    # torch: "clamp_cpu" not implemented for 'Bool' with both bounds tensors
    yield Sample(x34("expanded"), x34(seed=1), x34("transposed", seed=2), raises=dtype == "bool")


MASK = T((3, 4), dtype="bool", seed=5)
OTHERS = [
    OpInfo("where", fixed(Sample(MASK, x34(), x34("transposed", seed=1)), Sample(MASK, x34("offset"), 2.5),
                          Sample(MASK, 1.5, x34()), Sample(T((3, 1), dtype="bool"), x34("expanded"), T((4,), seed=1)),
                          Sample(T((), dtype="bool"), T(()), T((), seed=1)),
                          Sample(T((0, 4), dtype="bool"), T((0, 4)), 0)),
           method=None, grad=True),
    *[OpInfo(n, clamp_samples, grad=True)
      for n in ("clamp", "clip")],
    OpInfo("lerp", fixed(Sample(x34(), x34("transposed", seed=1), 0.3), Sample(x34("offset"), T((4,), seed=1), 0.75),
                         Sample(x34(), x34("expanded", seed=1), x34(seed=2, low=0, high=1)),
                         Sample(T(()), T((), seed=1), 0.5), Sample(T((0, 4)), T((0, 4)), 0.5)),
           dtypes=FLOATS, grad=True),
    OpInfo("masked_fill", fixed(Sample(x34(), MASK, 2), Sample(x34("transposed"), MASK, T(())),
                                Sample(x34("expanded"), T((4,), dtype="bool"), -1),
                                Sample(T((0, 4)), T((0, 4), dtype="bool"), 1)),
           grad=True),
    OpInfo("isclose", fixed(Sample(x34(), x34("transposed", seed=1)), Sample(x34(), x34()),
                            Sample(x34("offset"), T((4,)), rtol=0.5, atol=1.0),
                            Sample(T((len(SPECIAL),), values=SPECIAL), T((len(SPECIAL),), values=SPECIAL),
                                   equal_nan=True))),
]

CAT_EMPTY_GRAD = XFail("a = ember.ones(2, 2, requires_grad=True); b = ember.ones(0, requires_grad=True); "
                       "ember.autograd.grad(ember.cat([a, b]).sum(), [a, b], allow_unused=True)[1] is None, torch's "
                       "tensor([])", sample="contiguous0]", forms=("grad",))
IDX = dict(dtype="int64", low=0, high=2.4)
X3 = T((2, 3, 4))
NO_INPLACE = ("inplace",)


def shape(name, *samples, **kw):
    """A shape or indexing op: the same samples in every dtype, differentiable."""
    return OpInfo(name, fixed(*samples), grad=True, **kw)


SHAPE = [
    shape("reshape", Sample(x34("transposed"), (4, 3)), Sample(x34(), (-1,)), Sample(x34("offset"), (2, 6)),
          Sample(T(()), (1,)), Sample(T((0, 3)), (3, 0)), Sample(x34(), (5, -1), raises=True)),
    shape("view", Sample(x34(), (4, 3)), Sample(x34("offset"), (3, 2, 2)), Sample(T(()), (1, 1)),
          Sample(x34("transposed"), (12,), raises=True), torch_fn=None),
    shape("flatten", Sample(X3), Sample(X3, 1), Sample(T((2, 3, 4), "transposed"), 0, 1), Sample(T(()))),
    shape("unflatten", Sample(x34(), 1, (2, 2)), Sample(x34("transposed"), -1, (2, -1)),
          Sample(x34(), 0, (2, 2), raises=True)),
    shape("squeeze", Sample(T((3, 1, 4))), Sample(T((3, 1, 4)), 1), Sample(T((3, 1, 4)), (0, 1)), Sample(T(())),
          Sample(T((3, 1, 4), "transposed"), -2), Sample(T((1, 1, 4), "expanded"))),
    shape("unsqueeze", Sample(x34(), 0), Sample(x34("transposed"), -1), Sample(T(()), 0), Sample(x34("offset"), 1),
          Sample(x34(), 3, raises=True)),
    *[shape(n, Sample(X3, 0, 2), Sample(x34("offset"), -1, 0), Sample(T(()), 0, -1))
      for n in ("transpose", "swapaxes", "swapdims")],
    shape("t", Sample(x34("offset")), Sample(T((4,))), Sample(T(())), Sample(X3, raises=True)),
    shape("permute", Sample(X3, (2, 0, 1)), Sample(T((2, 3, 4), "transposed"), (1, -1, 0)),
          Sample(X3, (0, 0, 1), raises=True)),
    *[shape(n, Sample(X3, 0, -1), Sample(X3, (0, 1), (2, 0)), Sample(x34("offset"), 1, 0))
      for n in ("movedim", "moveaxis")],
    shape("narrow", Sample(x34(), 1, 1, 2), Sample(x34("transposed"), 0, 1, 2), Sample(x34("offset"), -1, 0, 0)),
    shape("select", Sample(x34(), 1, 2), Sample(x34("offset"), -1, -1), Sample(x34(), 0, 5, raises=True)),
    shape("expand", Sample(T((3, 1)), (3, 4)), Sample(T((4,), "offset"), (2, 3, 4)), Sample(T(()), (2, 2)),
          Sample(T((3, 1)), (-1, 4)), Sample(T((3, 2)), (3, 4), raises=True), torch_fn=None),
    shape("expand_as", Sample(T((3, 1)), x34()), torch_fn=None),
    shape("diagonal", Sample(x34()), Sample(x34("transposed"), 1), Sample(X3, 0, 0, 2), Sample(x34(), -2, 1, 0)),
    shape("chunk", Sample(x34(), 2, 1), Sample(x34("transposed"), 3)),
    shape("split", Sample(x34(), 2, 1), Sample(x34("offset"), [1, 3], 1), Sample(T((0, 4)), 1)),
    shape("unbind", Sample(x34()), Sample(x34("transposed"), 1)),
    *[shape(n, Sample([x34(), x34("transposed", seed=1)]), Sample([x34("offset"), T((3, 2), seed=1)], 1),
            Sample([x34(), T((0,))]), Sample([T(()), T(())], raises=True), method=None, xfails=[CAT_EMPTY_GRAD])
      for n in ("cat", "concat", "concatenate")],
    shape("stack", Sample([x34(), x34("transposed", seed=1)]), Sample([x34("offset"), x34(seed=1)], -1),
          Sample([T(()), T((), seed=1)]), method=None),
    shape("as_strided", Sample(x34(), (2, 3), (5, 2), 1), Sample(x34(), (3, 3), (1, 2)), missing=NO_INPLACE),
    shape("index_select", Sample(x34(), 1, T((3,), **IDX)), Sample(x34("transposed"), 0, T((0,), **IDX)),
          Sample(T(()), 0, T((), dtype="int64", low=0, high=0))),
    shape("gather", Sample(x34(), 1, T((3, 2), **IDX)), Sample(x34("transposed"), 0, T((2, 4), **IDX))),
    shape("unfold", Sample(x34(), 1, 2, 1), Sample(x34("transposed"), 0, 2, 1), torch_fn=None),
]


def alias(name, entry, n=4):
    """An alias (multiply, arctan2, ...): its own names, the first n samples of the entry it aliases."""
    return OpInfo(name, lambda dtype: itertools.islice(entry.samples(dtype), n), dtypes=entry.dtypes,
                  grad=entry.grad, xfails=entry.xfails, missing=entry.missing)


_BY_NAME = {op.name: op for op in UNARY + BINARY + REDUCTIONS}
ALIASES = [alias("multiply", _BY_NAME["mul"]), alias("divide", _BY_NAME["div"]),
           alias("true_divide", _BY_NAME["div"]), alias("arctan2", _BY_NAME["atan2"])]

MM_TOL = {"float16": (2e-3, 1e-2), "bfloat16": (1.6e-2, 1e-1), "float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)}


def linalg(name, *samples, dtypes=NUMERIC, missing=(), xfails=()):
    return OpInfo(name, fixed(*samples), dtypes=dtypes, grad=True, tol=MM_TOL, missing=missing, xfails=xfails)


LINALG = [
    linalg("mm", Sample(x34(), T((4, 5), seed=1)), Sample(x34("transposed"), T((4, 5), "offset", seed=1)),
           Sample(x34("expanded"), T((4, 5), "transposed", seed=1)), Sample(T((0, 4)), T((4, 5))),
           Sample(T((3, 0)), T((0, 5))), Sample(x34(), x34(), raises=True)),
    linalg("matmul", Sample(x34(), T((4, 5), seed=1)), Sample(T((2, 3, 4), "transposed"), T((4,), seed=1)),
           Sample(T((4,)), T((2, 4, 5), "offset", seed=1)), Sample(T((2, 1, 3, 4)), T((3, 4, 2), seed=1)),
           Sample(T((4,)), T((4,), seed=1)), Sample(T((0, 4)), T((4,)))),
    linalg("bmm", Sample(T((2, 3, 4)), T((2, 4, 5), seed=1)),
           Sample(T((2, 3, 4), "transposed"), T((2, 4, 5), "offset"))),
    linalg("mv", Sample(x34(), T((4,), seed=1)), Sample(x34("transposed"), T((4,), "offset", seed=1))),
    linalg("dot", Sample(T((4,)), T((4,), seed=1)), Sample(T((4,), "offset"), T((4,), "expanded", seed=1)),
           Sample(T((0,)), T((0,))), xfails=[XFail(
               "ember.dot(ember.ones(0, dtype=ember.bool), ember.ones(0, dtype=ember.bool)) returns False; torch "
               "raises NotImplementedError (\"dot\" not implemented for 'Bool')", ("bool",), sample="contiguous0,")]),
    *[linalg(n, Sample(T((3,)), T((4,), seed=1)), Sample(T((3,), "offset"), T((0,))), dtypes=DTYPES)
      for n in ("outer", "ger")],
    linalg("inner", Sample(T((4,)), T((4,), seed=1)), Sample(x34(), T((5, 4), seed=1)), Sample(T(()), x34()),
           Sample(T((2, 3, 4), "transposed"), T((4,), seed=1)), Sample(x34(), T((5, 3)), raises=True)),
    linalg("addmm", Sample(x34(), x34(seed=1), T((4, 4), seed=2)),
           Sample(T((4,)), x34("transposed"), T((4, 4)), beta=0.5, alpha=2)),
    linalg("addmv", Sample(T((3,)), x34(), T((4,), seed=1)), Sample(T(()), x34("offset"), T((4,)), beta=2, alpha=0.5)),
    linalg("baddbmm", Sample(T((2, 3, 5)), T((2, 3, 4), seed=1), T((2, 4, 5), seed=2)),
           Sample(T((3, 5)), T((2, 3, 4), "transposed"), T((2, 4, 5)), beta=0.5, alpha=2)),
    OpInfo("allclose", fixed(Sample(x34(), x34()), Sample(x34(), x34("transposed", seed=1), atol=10.0),
                             Sample(T((len(SPECIAL),), values=SPECIAL), T((len(SPECIAL),), values=SPECIAL),
                                    equal_nan=True))),
    OpInfo("equal", fixed(Sample(x34(), x34("transposed")), Sample(x34(), x34(seed=1)), Sample(x34(), T((4,))))),
]

OPS = UNARY + BINARY + ALIASES + REDUCTIONS + OTHERS + SHAPE + LINALG

# Each later op area keeps its entries in its own module, tests/python/opdb_<area>.py, as a list named ENTRIES.
for _path in sorted(pathlib.Path(__file__).parent.glob("opdb_*.py")):
    OPS += importlib.import_module(_path.stem).ENTRIES

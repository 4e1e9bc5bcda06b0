"""torch's small habits that real code relies on, compared with torch: node classes named after the node, the legacy
constructors (ember.Tensor(...), ember.FloatTensor(...)), numpy scalars keeping their dtype, every spelling of
dtype and device arguments, Tensor.type() and new_tensor."""
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome


def both(fn):
    """fn(ember) and fn(torch), or their exceptions (same type required)."""
    (re, ee), (rt, et) = outcome(lambda: fn(ember)), outcome(lambda: fn(torch))
    assert (ee is None) == (et is None), (ee, et)
    if et is not None:
        assert type(ee) is type(et), (ee, et)
    return re, rt


def node_names(m):
    x = m.ones(2, 3, requires_grad=True)
    y = (x + 1) * x.exp()
    z = y.sum(1).mean()
    names = [type(z.grad_fn).__name__]
    fn = z.grad_fn
    while fn.next_functions:
        fn = fn.next_functions[0][0]
        names.append(type(fn).__name__)
    return names + [type(m.flip(x, (0,)).grad_fn).__name__, type(x.t().grad_fn).__name__]


def test_node_class_names():
    e, t = both(node_names)
    assert e == t and e[0] == "MeanBackward0" and e[-3] == "AccumulateGrad"


def test_node_class_identity_and_custom_function():
    class Double(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = ember.ones(2, requires_grad=True)
    y = Double.apply(x)
    assert type(y.grad_fn).__name__ == "DoubleBackward"
    assert y.grad_fn is y.grad_fn and type(y.grad_fn) is type(Double.apply(x).grad_fn)
    assert isinstance(y.grad_fn, type((x + 1).grad_fn).__mro__[1])  # all node classes share one base
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    assert repr(y.grad_fn).startswith("<DoubleBackward object at")


@pytest.mark.parametrize("args", [([1, 2],), ([[1, 2], [3, 4]],), ((1.5, 2),), (np.array([1, 2]),), ([],), ()])
def test_legacy_constructor_data(args):
    e, t = both(lambda m: m.Tensor(*args))
    assert_same(e, t)


@pytest.mark.parametrize("args", [(2, 3), (0,), (4,)])
def test_legacy_constructor_sizes(args):
    for sizes in (args, (ember.Size(args),)):
        e = ember.Tensor(*sizes)
        t = torch.Tensor(*[torch.Size(s) if isinstance(s, ember.Size) else s for s in sizes])
        assert_same(e, t, check_values=False)


def test_legacy_constructor_tensor_device_and_errors():
    x = ember.ones(2, dtype=ember.int64)
    a = ember.Tensor(x)
    assert a is not x and a._is_view_of_same_storage(x) and a.dtype == ember.int64
    assert ember.Tensor([1, 2], device="cpu").device == ember.device("cpu")
    both(lambda m: m.Tensor(2.5))
    both(lambda m: m.Tensor([1, 2], dtype=m.float64))
    assert isinstance(ember.ones(1), ember.Tensor) and not isinstance(np.ones(1), ember.Tensor)


@pytest.mark.parametrize("name", ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
                                  "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"])
def test_legacy_types(name):
    for args in (([1, 0, 2],), ((3, 1),), ()):
        e, t = both(lambda m: getattr(m, name)(*args))
        assert_same(e, t)
    e, t = both(lambda m: getattr(m, name)(2, 3))
    assert_same(e, t, check_values=False)
    assert e.type() == t.type() == "torch." + name
    assert isinstance(e, getattr(ember, name)) and isinstance(e, ember.Tensor)
    assert not isinstance(ember.ones(1, dtype=ember.int8 if name != "CharTensor" else ember.int16), getattr(ember, name))
    assert repr(getattr(ember, name)) == repr(getattr(torch, name))


NUMPY_SCALARS = [np.float64(1.5), np.float32(1.5), np.float16(1.5), np.int64(3), np.int32(3), np.int16(3), np.int8(-3),
                 np.uint8(3), np.bool_(True)]


@pytest.mark.parametrize("value", NUMPY_SCALARS, ids=lambda v: type(v).__name__)
def test_numpy_scalars_keep_their_dtype(value):
    for fn in (lambda m: m.tensor(value), lambda m: m.as_tensor(value), lambda m: m.tensor([value, value]),
               lambda m: m.tensor(np.array(value)), lambda m: m.full((2,), value), lambda m: m.ones(2) + value,
               lambda m: m.scalar_tensor(value), lambda m: m.scalar_tensor(value, dtype=m.float64),
               lambda m: m.ones(2, dtype=m.int32) * value, lambda m: m.where(m.ones(2, dtype=m.bool), m.ones(2), value)):
        e, t = both(fn)
        assert_same(e, t)


SPELLINGS = [
    lambda m: m.ones(2, dtype=None), lambda m: m.ones(2, dtype=m.float64), lambda m: m.ones(2, dtype=float),
    lambda m: m.ones(2, dtype=int), lambda m: m.zeros(2, dtype=bool), lambda m: m.ones(2, device="cpu"),
    lambda m: m.ones(2, device="cpu:0"), lambda m: m.ones(2, device=m.device("cpu")),
    lambda m: m.ones(2, device=m.device("cpu", 0)), lambda m: m.ones(2, device=None), lambda m: m.ones(2, device=0),
    lambda m: m.device(0), lambda m: m.ones(2).to("cpu"), lambda m: m.ones(2).to("cpu", m.float64),
    lambda m: m.ones(2).to(dtype=m.float16), lambda m: m.ones(2).to(device="cpu:0"), lambda m: m.ones(2).to(float),
    lambda m: m.ones(2).to(int), lambda m: m.ones(2).to(m.ones(1, dtype=m.int32)), lambda m: m.ones(2, dtype="float32"),
    lambda m: m.tensor([1], device=m.device("cpu")), lambda m: m.arange(3, dtype=m.int32, device="cpu"),
    lambda m: m.empty(2, 3, dtype=m.bfloat16, device=m.device("cpu:0")).shape,
    lambda m: m.device("cpu") == m.device("cpu:0"), lambda m: str(m.device("cpu:0")), lambda m: m.ones(1).device.type,
    lambda m: m.ones(1).device.index, lambda m: m.zeros(2).new_ones(3, dtype=m.int8),
    lambda m: m.zeros(2, dtype=m.float64).new_zeros((2, 3)), lambda m: m.zeros(2).new_full((2,), 3, device="cpu"),
]


@pytest.mark.parametrize("i", range(len(SPELLINGS)))
def test_dtype_and_device_spellings(i):
    e, t = both(SPELLINGS[i])
    if isinstance(t, torch.Tensor):
        assert_same(e, t)
    elif t is not None:
        assert (tuple(e) if isinstance(t, torch.Size) else e) == (tuple(t) if isinstance(t, torch.Size) else t)


def test_type_strings_and_conversions():
    for name in ("float32", "float64", "float16", "bfloat16", "bool", "uint8", "int8", "int16", "int32", "int64",
                 "float8_e4m3fn", "float8_e5m2"):
        e, t = ember.ones(1).to(getattr(ember, name)), torch.ones(1).to(getattr(torch, name))
        assert e.type() == t.type()
    x = ember.ones(2)
    assert x.type(ember.float32) is x and x.type("torch.FloatTensor") is x
    assert x.type(ember.int32).dtype == ember.int32 and x.type("torch.DoubleTensor").dtype == ember.float64
    both(lambda m: m.ones(1).type("torch.float64"))


def test_new_tensor():
    x = ember.ones(2, dtype=ember.float64)
    assert_same(x.new_tensor([1, 2]), torch.ones(2, dtype=torch.float64).new_tensor([1, 2]))
    src = ember.ones(2, dtype=ember.int32, requires_grad=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = x.new_tensor(src, requires_grad=True)
    assert [str(w.message) for w in caught] == [
        "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
        "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor)."]
    assert r.dtype == ember.float64 and r.requires_grad and r.is_leaf and not r._is_view_of_same_storage(src)

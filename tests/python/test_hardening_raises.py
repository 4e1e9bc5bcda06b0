"""Exception parity with torch (issue 8): each case runs the same statements on torch and on ember and expects
the same exception type, or the same result. Cases come from the differential fuzz tester (tests/fuzz)."""
import math
import warnings

import pytest
import torch

import ember
from conftest import assert_same, outcome


def run(m, src):
    """Executes `src` with `m` as the module; the value of `r`."""
    ns = {"m": m, "math": math}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(src, ns)  # noqa: S102 - the test's own statements
    return ns["r"]


def check(src):
    t, te = outcome(lambda: run(torch, src))
    e, ee = outcome(lambda: run(ember, src))
    assert type(ee) is type(te), f"ember {type(ee).__name__}: {ee}\ntorch {type(te).__name__}: {te}"
    if te is None:
        for a, b in zip(e if isinstance(e, tuple) else (e,), t if isinstance(t, tuple) else (t,)):
            assert_same(a.detach(), b.detach(), check_strides=False, rtol=1e-6, atol=1e-6)
    return ee


OUT_FORMS = [
    # logical_not and nan_to_num take out= (nan_to_num's of the input's dtype, and not under autograd)
    "r = m.logical_not(m.tensor([1., 0.]), out=m.zeros(0, dtype=m.float32))",
    "r = m.logical_not(m.tensor([1., 0.]).requires_grad_(), out=m.zeros(2, dtype=m.int8))",
    "r = m.nan_to_num(m.tensor([math.nan, math.inf, 1.]), out=m.zeros(0))",
    "r = m.nan_to_num(m.tensor([1, 2]), out=m.zeros(0, dtype=m.int64))",
    "r = m.nan_to_num(m.tensor([1., 2.]), out=m.zeros(0, dtype=m.int8))",
    "r = m.nan_to_num(m.tensor([True]), out=m.zeros(0, dtype=m.int8))",
    "r = m.nan_to_num(m.tensor([1., 2.]).requires_grad_(), out=m.zeros(0))",
    # torch has no out= form of relu
    "r = m.relu(m.tensor([1., -1.]), out=m.zeros(2))",
    "r = m.relu(m.tensor([1., -1.]), out=m.zeros(0, dtype=m.int32))",
    # bitwise_not is not differentiable: its out= form checks the dtype, not the graph
    "r = m.bitwise_not(m.tensor([1., 2.]).requires_grad_(), out=m.zeros(0, dtype=m.float64))",
]


@pytest.mark.parametrize("src", OUT_FORMS)
def test_out_forms(src):
    check(src)


IN_PLACE_ORDER = [
    # the autograd layer's in-place checks come before the op's dtype checks
    "x = m.tensor([1., 2.]).requires_grad_(); r = x[:1].bitwise_not_()",
    "x = m.tensor([1., 2.]).requires_grad_(); r = x[:1].bitwise_xor_(m.tensor(2.))",
    "x = m.tensor([1., 2.]).requires_grad_(); v = x[:]; v <<= 1; r = v",
    "x = m.tensor([1., 2.]).requires_grad_(); r = x[:1].ceil_()",
    "x = m.tensor([1., 2.]).requires_grad_(); r = x.bitwise_not_()",
    # then the written tensor's overlap, before the dtype
    "r = m.tensor([True]).expand(3).ceil_()",
    "r = m.tensor([True]).expand(3).trunc_()",
    "r = m.tensor([1], dtype=m.uint8).expand(3).frac_()",
    "r = m.tensor([1.]).expand(3).bitwise_not_()",
]


@pytest.mark.parametrize("src", IN_PLACE_ORDER)
def test_in_place_check_order(src):
    check(src)


INDEX_SELECT = [
    # torch's dim-1 kernel and its empty-input check raise RuntimeError; the others IndexError
    "r = m.index_select(m.zeros(2, 3), 1, m.tensor([0, 5]))",
    "r = m.index_select(m.zeros(2, 3), 1, m.tensor([-1], dtype=m.int32))",
    "r = m.index_select(m.zeros(2, 3), 0, m.tensor([0, -2], dtype=m.int32))",
    "r = m.index_select(m.zeros(2, 3, 4), 2, m.tensor([7]))",
    "r = m.index_select(m.zeros(0, 3), 0, m.zeros(4, dtype=m.int64))",
    "r = m.index_select(m.zeros(3, 0), 0, m.tensor([5]))",
    "r = m.index_select(m.zeros(2, 0), 0, m.tensor([0, -2], dtype=m.int32))",
    "r = m.index_select(m.zeros(0, 3), 0, m.zeros(0, dtype=m.int64))",
    "r = m.index_select(m.zeros(0), 0, m.tensor([0]))",
]


@pytest.mark.parametrize("src", INDEX_SELECT)
def test_index_select_errors(src):
    check(src)


LINSPACE = [
    # more than one step: no bool kernel, and both ends must fit the dtype; one step is a fill
    "r = m.linspace(-3.25, 1, 6, dtype=m.bool)",
    "r = m.linspace(1, 5, 1, dtype=m.bool)",
    "r = m.linspace(1, 5, 0, dtype=m.bool)",
    "r = m.linspace(-2.25, 5, 2, dtype=m.uint8)",
    "r = m.linspace(-1, 5, 2, dtype=m.uint8)",
    "r = m.linspace(-math.inf, 5, 5, dtype=m.int8)",
    "r = m.linspace(1, 1e6, 2, dtype=m.float16)",
    "r = m.linspace(300, 5, 1, dtype=m.uint8)",
    "r = m.linspace(300, 5, 0, dtype=m.uint8)",
]


@pytest.mark.parametrize("src", LINSPACE)
def test_linspace_errors(src):
    check(src)


BIG_INTS = [
    # an int argument outside int64 is read as torch reads it: ValueError (a list element: TypeError)
    "r = m.zeros(2, 3).softmax(2**63)",
    "r = m.zeros(2, 3).narrow(0, 0, 2**64)",
    "r = m.zeros(2, 3).select(-2**63 - 1, 0)",
    "r = m.eye(2**63)",
    "r = m.eye(2, 2**63)",
    "r = m.linspace(0, 1, 2**63)",
    "r = m.zeros(2, 3).argmax(2**63)",
    "r = m.zeros(2, 3).sum(2**63)",
    "r = m.zeros(2, 3).sum((0, 2**63))",
    "r = m.zeros(2**63)",
    "r = m.zeros(2, 3).view(2**63)",
    "r = m.cat([m.zeros(2), m.zeros(2)], 2**63)",
    "r = m.zeros(2, 3).unflatten(1, 2**62)",
    "r = m.zeros(2, 3).argmax(None)",
    "r = m.zeros(2, 3).norm(dim=2**63)",
    "r = m.zeros(2, 3).norm(dim=1)",
    "r = m.zeros(2, 3).prod(2**63)",
    "r = m.zeros(2, 3).squeeze(2**63)",
    "r = m.zeros(2, 3).split(2**63)",
    "r = m.randint(2**63, (2,))",
    "r = m.zeros(2); r[0] = 2**64",
    "r = m.zeros(2, dtype=m.int64); r[0] = 2**63",
    "r = m.zeros(2, dtype=m.int8); r[0] = -2**63 - 1",
    # a Number no torch Scalar holds is an OverflowError
    "r = m.zeros(2) + 2**64",
    "r = m.zeros(2, dtype=m.int8) * (-2**63 - 1)",
    "r = m.zeros(2, dtype=m.bool).fill_(2**64)",
    "r = m.zeros(2).fill_(-2**63 - 1)",
    "r = m.zeros(2).clamp(2**64)",
    "r = m.where(m.tensor([True]), m.zeros(1), -2**63 - 1)",
    "r = m.zeros(1).masked_fill(m.tensor([True]), 2**64)",
    "r = m.full((2,), 2**64)",
    # torch's unsigned Scalars meet an integer dtype: an overflow RuntimeError
    "r = m.full((2,), 2**63)",
    "r = m.full((2,), 2**63, dtype=m.uint8)",
    "r = m.zeros(2, dtype=m.int64).fill_(2**63)",
    "r = m.zeros(2, dtype=m.int32).clamp(2**63)",
    "r = m.zeros(1, dtype=m.int8).masked_fill(m.tensor([True]), 2**63)",
    "r = m.arange(2**63)",
]


@pytest.mark.parametrize("src", BIG_INTS)
def test_big_ints(src):
    check(src)


CHECK_ORDER = [
    # stack wraps its dim before comparing sizes
    "r = m.stack([m.zeros(4, 3), m.zeros(5, 3)], 4)",
    "r = m.stack([m.zeros(2), m.zeros(2, dtype=m.int32).expand(2)], 3)",
    # baddbmm reads batch1.size(0), size(1), batch2.size(2) and expands input before its 3-D checks
    "r = m.baddbmm(m.tensor([], dtype=m.int32), m.tensor([], dtype=m.int32), m.zeros(0, 1, 0, dtype=m.int32))",
    "r = m.baddbmm(m.zeros(2), m.zeros(2, 2), m.zeros(2, 2, 2))",
    "r = m.baddbmm(m.zeros(2), m.zeros(2, 2, 2), m.zeros(2, 2))",
    "r = m.baddbmm(m.zeros(2), m.zeros(2), m.zeros(2, 2, 2))",
    "r = m.baddbmm(m.zeros(1, 0).t(), m.zeros(0, 1, 2), m.zeros(0, 2, 0))",
    # the inf norms of empty reductions; 'fro' over more than two dims
    "r = m.norm(m.zeros(0, 3), p=math.inf, dim=0, keepdim=True)",
    "r = m.norm(m.zeros(3, 0), p=-math.inf, dim=(-1,))",
    "r = m.norm(m.zeros(3, 0), p=math.inf)",
    "r = m.norm(m.zeros(2, 0, 3), p=math.inf, dim=(2, 0))",
    "r = m.norm(m.zeros(2, 0, 3, dtype=m.int64), p=math.inf, dim=1)",
    "r = m.norm(m.zeros(3, 2, 2), p='fro', dim=(2, -2, 0), keepdim=True)",
    "r = m.norm(m.zeros(3, 2, 2), p='fro', dim=(2, 0))",
]


@pytest.mark.parametrize("src", CHECK_ORDER)
def test_check_order(src):
    check(src)


SETITEM = [
    # index_put_'s order: the indices' checks, the value's shape, its dtype, then the bounds
    "x = m.zeros(2, 3, dtype=m.uint8); x[m.zeros(1, dtype=m.int64), 1:, -2:3:3] = m.tensor(3, dtype=m.float16); r = x",
    "x = m.zeros(5, 5); x[m.tensor([-1, -5]), m.tensor([-5, -2, -1])] = m.tensor(3, dtype=m.float16); r = x",
    "x = m.zeros(3, 2); x[m.tensor([True, True, True]), m.tensor([True, False, True])] = m.tensor(-5, dtype=m.int8); r = x",
    "x = m.zeros(2, 3); x[m.tensor([5])] = m.zeros(7); r = x",
    "x = m.zeros(2, 3); x[m.tensor([5])] = m.zeros(3, dtype=m.int64); r = x",
    "x = m.zeros(2, 3); x[m.tensor([5])] = m.zeros(3); r = x",
    # one bool mask and a one-element value: torch fills through masked_fill_, converting the value
    "x = m.zeros(2, 2); x[m.tensor([[False, True], [True, False]])] = m.tensor(-5, dtype=m.int8); r = x",
    "x = m.zeros(3, 2, dtype=m.int32); x[m.tensor([True, False, True]), None] = m.tensor(1, dtype=m.float16); r = x",
    "x = m.zeros(3, dtype=m.float64); x[m.tensor([False, False, False])] = m.tensor([4], dtype=m.bfloat16); r = x",
    "x = m.zeros(3); x[m.tensor([True, False, True])] = m.tensor([1, 2], dtype=m.int64); r = x",
    # Python bools: x[False] does nothing, x[True] copies; inside a tuple they are index tensors
    "x = m.zeros(2, requires_grad=True); x[False] = m.tensor(0, dtype=m.float64); r = x",
    "x = m.zeros(2, dtype=m.uint8); x[True] = m.tensor(-3, dtype=m.float16); r = x",
    "x = m.zeros(2, dtype=m.int16); x[False, None] = m.tensor([1, 2], dtype=m.int64); r = x",
    "x = m.zeros(2, dtype=m.uint8); x[True, None] = m.tensor(-3, dtype=m.float16); r = x",
    "x = m.zeros(2, 5, dtype=m.uint8); x[0, False] = -0.36; r = x",
    "x = m.zeros(2, 5, dtype=m.uint8); x[0, True] = 7; r = x",
    # masked_fill_ into an expanded tensor warns and writes the filled elements only
    "x = m.zeros(1).expand(3); x.masked_fill_(m.tensor([True, False, False]), 5.); r = x",
    "x = m.zeros(1, 2).expand(3, 2); x.masked_fill_(m.tensor([[False, True]]), m.tensor(2, dtype=m.int8)); r = x",
]


@pytest.mark.parametrize("src", SETITEM)
def test_setitem_checks(src):
    check(src)


MISC = [
    # lerp: dtypes (a 0-dim weight may differ), shapes, then the kernel's dtype
    "r = m.lerp(m.zeros(1, 2, 5, dtype=m.int32), m.zeros(6, dtype=m.int32), m.zeros(6, dtype=m.int32))",
    "r = m.lerp(m.tensor(-6), m.tensor([6]), m.tensor(True))",
    "r = m.lerp(m.zeros(2), m.ones(2), m.tensor(True))",
    "r = m.lerp(m.zeros(2), m.ones(2), m.tensor(0.25, dtype=m.float64))",
    "r = m.lerp(m.zeros(1), m.zeros(1), m.zeros(1, dtype=m.bool))",
    # a 0-dim weight takes part in type promotion (a number weight does not)
    "r = m.lerp(m.tensor([False, True]), m.tensor([True, True]), m.tensor(2.18, dtype=m.float16))",
    "r = m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), m.tensor(0.5, dtype=m.float64))",
    "r = m.lerp(m.tensor([1., 2.], dtype=m.float16), m.tensor([3., 4.], dtype=m.float16), m.tensor(0.5, dtype=m.float64))",
    "r = m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), m.tensor(1))",
    "r = m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), 0.5)",
    # a fill value is converted (checked) even for an empty tensor
    "r = m.full((0,), -2.0, dtype=m.uint8)",
    "r = m.zeros(0, dtype=m.float16).fill_(1e6)",
    # bool ** 0 and ** 1 are a fill and a copy
    "r = m.tensor([True, False]).pow(False)",
    "r = m.tensor([True, False]) ** 0",
    "r = m.tensor([True, False]).pow(True)",
    "r = m.tensor([True, False]) ** 2",
    # inputs that are all legacy empty 1-D tensors: cat does not wrap dim
    "r = m.cat([m.zeros(0)], 3)",
    "r = m.cat([m.zeros(3, 0, requires_grad=True).select(0, 1), m.zeros(0, dtype=m.int64)], 5)",
    # var saves no result: an in-place op on it before backward is fine (std saves it)
    "x = m.tensor([1., 2., 4.], requires_grad=True); v = m.var(x, 0); v.clamp_(0, 1); v.sum().backward(); r = x.grad",
    "x = m.tensor([1., 2., 4.], requires_grad=True); v, mu = m.var_mean(x, 0); v.trunc_(); v.backward(); r = x.grad",
    "x = m.tensor([1., 2., 4.], requires_grad=True); v = m.std(x, 0); v.clamp_(0, 1); v.backward(); r = x.grad",
]


@pytest.mark.parametrize("src", MISC)
def test_misc(src):
    check(src)


INDEX_ARGS = [
    # torch counts a list holding a str as a tuple of indices: too many, before reading the str
    "r = m.arange(6.).reshape(2, 3)[[0, 1, 'a']]",
    "x = m.arange(6.).reshape(2, 3); x[[0, 1, 'a']] = 1; r = x",
    "r = m.arange(6.).reshape(2, 3)[[0, 'a']]",
    # a huge step wraps the stride negative: torch's as_strided error, not a view with a negative stride
    "r = m.zeros(4, 2)[::2**63]",
    "r = m.zeros(4, 2).unfold(0, 0, 2**62)",
    "r = m.zeros(4)[::2**63]",
    # narrow's Tensor start must be a 0-dim integral tensor
    "r = m.zeros(2, 3).narrow(0, m.tensor([0.5]), 1)",
    "r = m.zeros(2, 3).narrow(0, m.tensor([1]), 1)",
    "r = m.zeros(2, 3).narrow(0, m.tensor(1), 1)",
    "r = m.zeros(2, 3).narrow(0, m.tensor(1.), 1)",
]


@pytest.mark.parametrize("src", INDEX_ARGS)
def test_index_args(src):
    check(src)


DATA = [
    # torch reads a nested list's shape along its first elements and checks lengths only when storing elements
    "r = m.tensor([[], [1]])",
    "r = m.tensor([[], [1]], dtype=m.int8)",
    "r = m.tensor([[[]], [[1]]])",
    "r = m.tensor([[1], []])",
    "r = m.tensor([[1, 2], [3]])",
]


@pytest.mark.parametrize("src", DATA)
def test_data(src):
    check(src)


SIGNATURES = [
    # bool clamp: torch has clamp_min/clamp_max by a tensor only
    "r = m.clamp(m.tensor([True, False]), m.tensor([True]), m.tensor([True]))",
    "r = m.clamp(m.tensor([True, False]), max=True)",
    "r = m.clamp(m.tensor([True, False]), min=True)",
    "r = m.clamp(m.tensor([True, False]), min=m.tensor([True]))",
    "r = m.clamp(m.tensor([True, False]), max=m.tensor([False]))",
    "r = m.clamp(m.tensor([True, False]), 0, 1)",
    # the method takes None as no sizes (RuntimeError), the function refuses it (TypeError), as torch
    "r = m.zeros(2, 3).unflatten(1, None)",
    "r = m.unflatten(m.zeros(2, 3), 1, None)",
    "r = m.unflatten(m.zeros(2, 3), 1, (3, 1))",
    # movedim's overloads are (int, int) and (tuple, tuple)
    "r = m.zeros(2, 3).movedim((0, 1), 0)",
    "r = m.zeros(2, 3).moveaxis(0, [1])",
    "r = m.zeros(2, 3).movedim([0], (1,))",
]


@pytest.mark.parametrize("src", SIGNATURES)
def test_signatures(src):
    check(src)


COMPLEX = [
    "r = m.zeros(2).fill_(1j)",
    "r = m.zeros(2).masked_fill(m.tensor([True, False]), 1j)",
    "r = m.lerp(m.zeros(2), m.zeros(2), 1j)",
    "r = m.clamp(m.zeros(2), 1j)",
    "r = m.full((2,), 1j, dtype=m.float32)",
    "r = m.zeros(2); r[0] = 1j",
    "r = m.clamp(m.arange(6.), 1j)", "r = m.arange(6.).fill_(1j)", "r = m.lerp(m.arange(6.), m.arange(6.), 1j)",
    "r = m.arange(6.).masked_fill(m.arange(6.) > 1, 1j)",
]


@pytest.mark.parametrize("src", COMPLEX)
def test_complex_numbers(src):
    """Ember has no complex dtypes: a complex number raises RuntimeError, torch's type where it meets a real dtype."""
    with pytest.raises(RuntimeError, match="no complex dtypes") as e:
        run(ember, src)
    assert type(e.value) is RuntimeError
    with pytest.raises(RuntimeError):
        run(torch, src)


def test_recorded_in_place_op_refuses_partial_overlap():
    # fuzz (seed 5): an in-place op on a tensor in the graph, with a differently shaped view of it as the other
    # operand, took the recorded path, which skipped the aliasing check torch's kernel makes
    for m in (ember, torch):
        v1 = m.cumsum(m.tensor([[-2.0]], requires_grad=True), 1)
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            v1.mul_(v1.flatten(0, -1))
        v2 = m.tensor([[1.0, 2.0]], requires_grad=True) * 1
        v2.add_(v2)  # full overlap stays allowed

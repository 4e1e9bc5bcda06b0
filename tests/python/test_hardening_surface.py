"""Issue 8, area `surface`: the Python signatures follow torch's (no argument torch refuses is accepted) and the
autograd nodes carry torch's names (the overload that was called picks the name). Each case runs on torch too."""
import pytest
import torch

import ember
from conftest import assert_same, outcome

# Binary ops whose `other` is a Tensor in every torch signature (no Scalar overload, not on torch's
# numbers-as-tensors list), with their in-place method where torch has one.
TENSOR_ONLY = {"maximum": None, "minimum": None, "fmax": None, "fmin": None, "atan2": "atan2_",
               "arctan2": "arctan2_", "logical_and": "logical_and_", "logical_or": "logical_or_",
               "logical_xor": "logical_xor_", "isclose": None}


def first_line(e):
    return str(e).split("\n")[0]


def same_type_error(fn):
    """fn(torch) and fn(ember) both raise TypeError; the message is torch's when torch names the argument."""
    _, et = outcome(lambda: fn(torch))
    _, ee = outcome(lambda: fn(ember))
    assert isinstance(et, TypeError), et
    assert isinstance(ee, TypeError), f"ember accepted what torch refuses: {et}"
    if "must be Tensor, not" in str(et):
        assert first_line(ee) == first_line(et)


def same_result(fn, **kw):
    r_t, et = outcome(lambda: fn(torch))
    r_e, ee = outcome(lambda: fn(ember))
    assert et is None and ee is None, (et, ee)
    assert_same(r_e, r_t, **kw)


@pytest.mark.parametrize("op", list(TENSOR_ONLY))
@pytest.mark.parametrize("number", [2, -1.75, True, None])
def test_tensor_only_other_refuses_numbers(op, number):
    x = lambda m: m.tensor([1.0, -2.0, 0.5])  # noqa: E731
    same_type_error(lambda m: getattr(m, op)(x(m), number))
    same_type_error(lambda m: getattr(x(m), op)(number))
    if op != "isclose":
        same_type_error(lambda m: getattr(m, op)(x(m), number, out=m.zeros(3)))
    if TENSOR_ONLY[op]:
        same_type_error(lambda m: getattr(x(m), TENSOR_ONLY[op])(number))


@pytest.mark.parametrize("op", list(TENSOR_ONLY))
def test_tensor_only_other_takes_tensors(op):
    same_result(lambda m: getattr(m, op)(m.tensor([1.0, -2.0, 0.5]), m.tensor(0.5)))
    same_result(lambda m: getattr(m.tensor([1.0, -2.0, 0.5]), op)(m.tensor([2.0, -3.0, 0.5])))


@pytest.mark.parametrize("call", [
    lambda m, x: m.add(x, 2), lambda m, x: x.add(2, alpha=3), lambda m, x: m.sub(x, 1.5, alpha=2),
    lambda m, x: m.mul(x, 2), lambda m, x: m.div(x, 2), lambda m, x: m.true_divide(x, 2),
    lambda m, x: m.floor_divide(x, 2), lambda m, x: m.remainder(x, 2), lambda m, x: m.fmod(x, 2),
    lambda m, x: m.pow(x, 2), lambda m, x: m.eq(x, 1), lambda m, x: x.lt(0.5), lambda m, x: x.maximum(x * 2),
    lambda m, x: m.clamp(x, min=None, max=1), lambda m, x: m.clamp(x, 0), lambda m, x: m.where(x > 0, x, 2.0),
    lambda m, x: x.clone().add_(2), lambda m, x: x.clone().mul_(True), lambda m, x: m.add(x, 2, out=m.zeros(3)),
    lambda m, x: m.div(x, 2, rounding_mode="floor"), lambda m, x: m.lerp(x, x * 2, 0.5),
])
def test_numbers_torch_accepts_stay_accepted(call):
    same_result(lambda m: call(m, m.tensor([1.0, -2.0, 0.5])))


@pytest.mark.parametrize("op", ["mul", "div", "maximum", "atan2", "eq", "remainder"])
def test_alpha_only_on_add_and_sub(op):
    same_type_error(lambda m: getattr(m, op)(m.ones(2), m.ones(2), alpha=2))
    same_type_error(lambda m: getattr(m.ones(2), op)(m.ones(2), alpha=2))


@pytest.mark.parametrize("call", [
    lambda m, x: m.prod(x, None), lambda m, x: m.prod(x, dim=None, keepdim=False), lambda m, x: x.prod(None),
    lambda m, x: x.prod((0,)), lambda m, x: x.prod(True), lambda m, x: x.prod(keepdim=True),
    lambda m, x: x.sum(keepdim=True), lambda m, x: m.mean(x, keepdim=True),
    lambda m, x: m.squeeze(x, None), lambda m, x: x.squeeze(None), lambda m, x: x.squeeze(dim=None),
    lambda m, x: m.relu(x, out=m.zeros(2, 3)),
])
def test_signatures_refuse_what_torch_refuses(call):
    same_type_error(lambda m: call(m, m.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])))


@pytest.mark.parametrize("call", [
    lambda m, x: m.prod(x), lambda m, x: m.prod(x, 1), lambda m, x: x.prod(0, True), lambda m, x: x.prod(dtype=m.float64),
    lambda m, x: x.prod(dim=-1, keepdim=True, dtype=m.float64), lambda m, x: m.sum(x, None), lambda m, x: x.sum(()),
    lambda m, x: x.sum(dim=None, keepdim=True), lambda m, x: x.mean((0, 1)), lambda m, x: x.sum(dtype=m.float64),
    lambda m, x: x[None].squeeze(), lambda m, x: x[None].squeeze(0), lambda m, x: x[None].squeeze((0, 1)),
    lambda m, x: m.squeeze(x[None], [0]), lambda m, x: m.relu(x), lambda m, x: m.exp(x, out=m.zeros(2, 3)),
])
def test_signatures_torch_accepts(call):
    same_result(lambda m: call(m, m.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])), rtol=1e-6, atol=1e-6)


def grad_fn_name(r):
    if isinstance(r, tuple):
        r = r[0]
    return r.grad_fn.name() if r.grad_fn is not None else None


# (expression, on a (2, 3) float tensor x that requires grad, v = x[0] * 1 and s = a 0-dim graph tensor)
NAMED = [
    "x.sum()", "x.sum(dim=None)", "x.sum(())", "x.sum(None, True)", "x.sum(dtype=m.float64)", "x.sum(0)",
    "x.mean()", "x.mean(None)", "x.mean(dim=None, keepdim=True)", "x.mean(dtype=m.float64)", "x.mean([])",
    "x.prod()", "x.prod(0)", "m.prod(x, 1, True)",
    "x[None].squeeze()", "x[None].squeeze(0)", "x[None].squeeze((0,))", "x[None].squeeze([0, 1])",
    "x // 2", "x // x", "2 // x", "m.floor_divide(x, 2)", "x.floor_divide(x)",
    "x % 2", "x % x", "2 % x", "m.remainder(x, 2)", "m.remainder(x, m.tensor(2.0))",
    "m.fmod(x, 2)", "m.fmod(x, m.tensor(2))", "x.fmod(x)",
    "x / 2", "x / x", "m.div(x, 2)", "m.div(x, 2, rounding_mode=None)", "m.div(x, x, rounding_mode=None)",
    "x.div(m.tensor(2.0), rounding_mode=None)", "m.divide(x, 2, rounding_mode=None)",
    "m.div(x, 2, rounding_mode='floor')", "m.true_divide(x, 2)",
    "s.movedim(0, 0)", "s.movedim((), ())", "m.movedim(s, 0, -1)", "x.movedim(0, 1)", "v.movedim(0, -1)",
    "x.t().reshape(6)", "x.t().flatten()", "x.reshape(6)", "x.t().reshape(3, 2)", "x[:, :2].reshape(2, 2)",
    "x[:1].reshape(3)", "x[:, None].reshape(2, 3)",
    "m.inner(v, v)", "m.dot(v, v)", "m.addmv(v[:2], x, v)", "m.addmv(s, x, v, beta=0.5, alpha=2)",
    "m.addmv(v[:2], x, v).mul_(2)",
    # an in-place op on an op's result records the in-place op (the result is not a view of a temporary)
    "x.sum(0).mul_(2)", "x.amin(0).atan_()", "x.amax(1, keepdim=True).sin_()", "x.mean(1).sigmoid_()",
    "x.prod(0).neg_()", "x.max(0)[0].exp_()", "m.stack([x, x]).square_()", "x.index_select(0, m.tensor([1])).abs_()",
    "x.logsumexp(0).sign_()", "x.t().reshape(6).sub_(1)", "m.mv(x, v).clamp_(None, 1.75)", "m.dot(v, v).div_(2)",
    "m.std_mean(x, 0)[1].relu_()", "x.softmax(1).sqrt_()", "x[m.tensor([0])].cos_()", "x.sum().floor_divide_(2)",
    "x.gather(0, m.tensor([[0, 1, 0]])).trunc_()", "x.cumsum(0).mul_(x)",
    # a bool index is an index (a copy, IndexBackward0); dim=None of a 0-dim tensor is still the dim overload
    "x[True]", "x[False]", "x[:, True]", "x[None, True]", "x.t()[True]", "x[0, True]",
    "s.sum(None)", "s.mean(dim=None, keepdim=True)", "s.sum(())",
]


@pytest.mark.parametrize("expr", NAMED)
def test_grad_fn_names(expr):
    def run(m):
        x = m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        env = {"m": m, "x": x, "v": x[0] * 1, "s": x[0, 0] * 1}
        return grad_fn_name(eval(expr, env))  # noqa: S307 - our own expressions

    assert run(ember) == run(torch)


@pytest.mark.parametrize("expr", ["(x // 2).sum()", "(2 % x).sum()", "x.floor_divide(m.tensor(2.0)).sum()"])
def test_not_implemented_node_raises_torchs_error(expr):
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        eval(expr, {"m": m, "x": x}).backward()  # noqa: S307 - our own expressions

    _, et = outcome(lambda: run(torch))
    _, ee = outcome(lambda: run(ember))
    assert type(ee) is type(et) and str(ee) == str(et)


@pytest.mark.parametrize("expr", [
    "y = x.sum(0); y.mul_(2); r = y", "y = x.amax(1); r = y * 3", "y = x.t().reshape(6); y.mul_(x.reshape(6)); r = y",
    "y = m.div(x, x + 1, rounding_mode=None); r = y", "y = m.fmod(x, m.tensor(4.0)); r = y", "y = x % x.detach().neg(); r = y",
    "y = m.stack([x, x]); y.mul_(2); r = y", "r = m.inner(x[1], x[0])", "r = x[None].squeeze((0,)) * x",
    "y = x * 1; a, b = y.unbind(0); r = a * b", "y = x * 1; a, b = y.split(1); r = a * b",
    "r = x[:, True] * x[None]", "r = x.t()[True] * 2", "r = x[False].sum() + x.sum()",
    "r = m.addmv(x[0, :2], x, x[1], beta=0.5, alpha=2)", "r = m.addmv(x[0, 0], x, x[1] * 1, beta=0)",
])
def test_gradients_unchanged(expr):
    """The renamed nodes keep torch's gradients."""
    def run(m):
        x = m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], requires_grad=True)
        env = {"m": m, "x": x}
        exec(expr, env)  # noqa: S102 - our own statements
        env["r"].sum().backward()
        return x.grad

    assert_same(run(ember), run(torch), rtol=1e-6, atol=1e-6)


def test_views_stay_views_after_recording():
    """A write into a view of a graph tensor still reaches its base's gradient (view ops mark their outputs as
    views after recording, which takes outputs to be new tensors)."""
    def run(m):
        x = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * 1
        y[0].mul_(3)
        y.sum().backward()
        return x.grad, grad_fn_name(y)

    (ge, ne), (gt, nt) = run(ember), run(torch)
    assert_same(ge, gt)
    assert ne == nt


@pytest.mark.parametrize("index", [True, False, (slice(None), True), (None, True), (0, True), (Ellipsis, True)])
@pytest.mark.parametrize("transposed", [False, True])
def test_bool_index_of_a_graph_tensor(index, transposed):
    """A bool index of a tensor that requires grad: torch's copy (values, strides), not a view."""
    def run(m):
        x = m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        r = (x.t() if transposed else x)[index]
        return r, r.grad_fn.name(), r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()

    (re, ne, ae), (rt, nt, at) = run(ember), run(torch)
    assert_same(re.detach(), rt.detach())
    assert (ne, ae) == (nt, at)


@pytest.mark.parametrize("stmts", [
    "v1 = x * 1; v2 = v1[0]; v1.mul_(2); r = v2",  # the base written in place after the view was taken
    "v1 = x * 1; v2 = v1.select(-1, 0); v1.index_put_((m.tensor([], dtype=m.int64),), m.tensor(2.0), accumulate=True); r = v2",
    "v1 = x * 1; v2 = v1[1:]; v3 = v1[:2]; v3.mul_(3); r = v2",  # another view of the base written
    "v1 = x.clone(); v3 = v1.unsqueeze(0); v3[0, None] = m.tensor([1.5]); r = v3",
    "v1 = x * 1; v2 = v1.t() if v1.dim() == 2 else v1[:]; v2.logical_xor_(m.tensor([1.0, 0.0, 1.0])); r = v2",
    "v1 = x * 1; v2 = v1[0]; r = v2",  # untouched: the view keeps its own node
])
def test_view_history_after_in_place_write(stmts):
    """A view whose storage was written in place after it was taken gets its history afresh from its base
    (AsStridedBackward0), as torch: its name and its gradient follow the base's new history."""
    def run(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        env = {"m": m, "x": x}
        exec(stmts, env)  # noqa: S102 - our own statements
        r = env["r"]
        name = grad_fn_name(r)
        (r * m.arange(1.0, r.numel() + 1).reshape(r.shape)).sum().backward()
        return name, x.grad

    (ne, ge), (nt, gt) = run(ember), run(torch)
    assert ne == nt
    assert_same(ge, gt)


@pytest.mark.parametrize("index", ["[:, :]", "[0:2, 1:]", "[:, None, :4]", "[0, :, :10]", "[::1, ...]", "[..., :]",
                                   "[-2:3:1, 0:-1:3, None, :4]", "[:]", "[:2]", "[(slice(None),)]", "[..., ::2]",
                                   "[:, 0:5]", "[:, -3:]", "[:, :-0]", "[:, 0:1000000000000]", "[0, :, -5:]",
                                   "[:, :, 4:, None]", "[:, 0, 0:0]", "[1, 1:]", "[0, 0, 0:]"])
@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 0)])
def test_whole_slices_in_an_index_tuple_are_skipped(index, shape):
    """torch's applySlicing skips a slice over a whole dim inside a tuple index (x[:, :] is AliasBackward0, x[:]
    SliceBackward0): same node names and views."""
    def run(m):
        x = m.zeros(shape).requires_grad_()
        r = eval("x" + index)  # noqa: S307 - our own expressions
        return r, grad_fn_name(r)

    (re, ne), (rt, nt) = run(ember), run(torch)
    assert_same(re.detach(), rt.detach())
    assert ne == nt


def test_assigning_through_false_writes_nothing():
    for m in (ember, torch):
        y = (m.arange(3.0).requires_grad_() * 1).acos()
        version = y._version
        y[False] = 3
        y[False] = m.ones(5)  # not even the value's shape is checked, as torch
        assert (y._version, grad_fn_name(y)) == (version, "AcosBackward0")
        with pytest.raises(TypeError):
            y[False] = "a"


@pytest.mark.parametrize("call", [
    "m.eye(True)", "m.randperm(True)", "x.transpose(True, 0)", "x.swapaxes(0, True)", "x.movedim(True, 0)",
    "x.split(True)", "x.split(1, True)", "x.chunk(2, True)", "x.unbind(True)", "x.unsqueeze(True)", "x.select(True, 0)",
    "x.narrow(True, 0, 1)", "x.flatten(True)", "x.unfold(True, 1, 1)", "x.diagonal(0, True, 0)", "x.argmax(True)",
    "x.softmax(True)", "x.log_softmax(True)", "x.cumsum(True)", "x.cumprod(True)", "x.index_select(True, m.tensor([0]))",
    "x.gather(True, m.zeros(2, 3, dtype=m.int64))", "m.cat([x, x], True)", "m.stack([x, x], True)", "x.sum(True)",
    "x.round(decimals=True)", "m.randint(True, (2,))", "x.squeeze(True)", "x.prod(True)",
    "x.max(None)", "m.min(x, None)", "x.max(keepdim=True)", "x.min(True)", "x.max(x, True)", "x.unflatten(1, -1)",
])
def test_int_arguments_refuse_bool(call):
    """torch's int arguments refuse a bool (one rule for every int64_t argument of the bindings)."""
    same_type_error(lambda m: eval(call, {"m": m, "x": m.arange(6.0).reshape(2, 3)}))  # noqa: S307


@pytest.mark.parametrize("call", [
    "x.transpose(np.int64(0), 1)", "x.unsqueeze(m.tensor(1))", "x.select(0, m.tensor(1))", "x.movedim(0, 1)",
    "x.split(1)[0]", "x.split([1, 1])[1]", "x.movedim((0, 1), (1, 0))", "m.full((2,), True)", "x.new_full((2,), True)",
    "m.arange(True)", "x.std(0, True)", "x.max()", "x.max(0)[0]", "m.min(x, 1, True).indices", "x.max(x * 2)",
    "x.min(m.tensor(2.0))", "x.max(dim=1, keepdim=True).values", "x.unflatten(1, (3, 1))", "x.unflatten(1, [-1])",
])
def test_int_arguments_take_ints(call):
    import numpy as np
    same_result(lambda m: eval(call, {"m": m, "np": np, "x": m.arange(6.0).reshape(2, 3)}))  # noqa: S307

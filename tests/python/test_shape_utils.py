"""Shape utilities beyond the op database: views vs copies, node names, messages, the one-argument
repeat_interleave, tril_indices/triu_indices, broadcast_shapes, meshgrid's warning, in-place and out= forms."""
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome


def pair(shape=(3, 4), dtype="float32", seed=0):
    a = np.random.default_rng(seed).uniform(-3, 3, shape)
    return ember.from_numpy(a).to(getattr(ember, dtype)), torch.from_numpy(a).to(getattr(torch, dtype))


def shares(m, r, x):
    return r._is_view_of_same_storage(x) if m is ember else r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


def first(r):
    return r[0] if isinstance(r, tuple) else r


# (name, fn(m, x)) for x of shape (3, 4); whether the result shares x's storage must match torch
CALLS = [
    ("broadcast_to", lambda m, x: m.broadcast_to(x, (2, 3, 4))), ("atleast_1d", lambda m, x: m.atleast_1d(x)),
    ("atleast_3d", lambda m, x: m.atleast_3d(x)), ("ravel", lambda m, x: m.ravel(x)),
    ("ravel_T", lambda m, x: m.ravel(x.t())), ("tensor_split", lambda m, x: m.tensor_split(x, 2, 1)),
    ("hsplit", lambda m, x: m.hsplit(x, 2)), ("meshgrid", lambda m, x: m.meshgrid(x[0], x[1], indexing="xy")),
    ("broadcast_tensors", lambda m, x: m.broadcast_tensors(x, x[0])), ("flip", lambda m, x: m.flip(x, (0,))),
    ("flip_none", lambda m, x: m.flip(x, ())), ("roll", lambda m, x: m.roll(x, 1, 0)), ("roll0", lambda m, x: m.roll(x, 0)),
    ("rot90_0", lambda m, x: m.rot90(x, 0)), ("rot90", lambda m, x: m.rot90(x)), ("repeat", lambda m, x: x.repeat(1, 1)),
    ("tile", lambda m, x: m.tile(x, (1,))), ("tril", lambda m, x: m.tril(x, 5)),
    ("repeat_interleave", lambda m, x: m.repeat_interleave(x, 1, 0)), ("diag", lambda m, x: m.diag(x)),
    ("cartesian_prod1", lambda m, x: m.cartesian_prod(x[0])), ("swapaxes", lambda m, x: m.swapaxes(x, 0, 1)),
    ("swapdims", lambda m, x: x.swapdims(0, 1)), ("moveaxis", lambda m, x: m.moveaxis(x, 0, 1)),
    ("view_as", lambda m, x: x.view_as(x.reshape(2, 6))), ("reshape_as", lambda m, x: x.reshape_as(x.reshape(12))),
    ("expand_as", lambda m, x: x[0].expand_as(x)),
]


@pytest.mark.parametrize("name,fn", CALLS, ids=[c[0] for c in CALLS])
def test_views_and_copies_as_torch(name, fn):
    e, t = pair()
    re, rt = first(fn(ember, e)), first(fn(torch, t))
    assert_same(re, rt)
    assert shares(ember, re, e) == shares(torch, rt, t)


def test_same_tensor_returned_as_torch():
    e, t = pair()
    for m, x in ((ember, e), (torch, t)):
        y = x[0]
        assert m.atleast_2d(x) is x and m.broadcast_tensors(x, x)[0] is x and m.cartesian_prod(y) is y
        assert m.broadcast_to(x, (3, 4)) is not x and m.atleast_1d(y, x)[1] is x and m.atleast_3d([x])[0] is not x


NODES = [
    ("hstack", lambda m, x: m.hstack([x, x])), ("column_stack", lambda m, x: m.column_stack([x, x])),
    ("tensor_split", lambda m, x: m.tensor_split(x, 2, 1)[1]), ("flip", lambda m, x: m.flip(x, (0,))),
    ("fliplr", lambda m, x: m.fliplr(x)), ("roll", lambda m, x: m.roll(x, 1)), ("roll2", lambda m, x: m.roll(x, (1, 1), (0, 1))),
    ("rot90", lambda m, x: m.rot90(x, 3)), ("rot90_0", lambda m, x: m.rot90(x, 0)), ("repeat", lambda m, x: x.repeat(2, 1)),
    ("tile", lambda m, x: m.tile(x, (2,))), ("repeat_interleave", lambda m, x: m.repeat_interleave(x, 2)),
    ("repeat_interleave_t", lambda m, x: m.repeat_interleave(x, m.tensor([1, 2, 0]), 0)),
    ("broadcast_to", lambda m, x: m.broadcast_to(x, (2, 3, 4))), ("meshgrid", lambda m, x: m.meshgrid(x[0], indexing="ij")[0]),
    ("tril", lambda m, x: m.tril(x)), ("triu", lambda m, x: x.triu(1)), ("diag1", lambda m, x: m.diag(x[0])),
    ("diag2", lambda m, x: m.diag(x)), ("diag_embed", lambda m, x: m.diag_embed(x)), ("diagflat", lambda m, x: m.diagflat(x)),
    ("trace", lambda m, x: m.trace(x)), ("block_diag", lambda m, x: m.block_diag(x, x[0])),
    ("cartesian_prod", lambda m, x: m.cartesian_prod(x[0], x[1])), ("combinations", lambda m, x: m.combinations(x[0])),
    ("atleast_1d", lambda m, x: m.atleast_1d(x[0, 0])), ("atleast_3d", lambda m, x: m.atleast_3d(x[0])),
    ("ravel", lambda m, x: m.ravel(x.t())),
]


@pytest.mark.parametrize("name,fn", NODES, ids=[c[0] for c in NODES])
def test_node_names(name, fn):
    e, t = pair()
    re, rt = fn(ember, e.requires_grad_()), fn(torch, t.requires_grad_())
    assert re.grad_fn.name() == rt.grad_fn.name()


ERRORS = [
    lambda m: m.hstack([]), lambda m: m.tensor_split(m.ones(()), 2), lambda m: m.tensor_split(m.ones(3), 0),
    lambda m: m.tensor_split(m.ones(3, 4), m.tensor([1.0])), lambda m: m.tensor_split(m.ones(3, 4), m.tensor([[1]])),
    lambda m: m.hsplit(m.ones(3, 4), 3), lambda m: m.vsplit(m.ones(4), 2), lambda m: m.dsplit(m.ones(3, 4), 2),
    lambda m: m.flip(m.ones(3, 4), (0, 0)), lambda m: m.fliplr(m.ones(3)), lambda m: m.flipud(m.ones(())),
    lambda m: m.roll(m.ones(3, 4), (1, 2)), lambda m: m.rot90(m.ones(3, 4), 1, (0,)), lambda m: m.rot90(m.ones(3)),
    lambda m: m.rot90(m.ones(3, 4), 1, (0, 0)), lambda m: m.ones(3, 4).repeat(2), lambda m: m.ones(3, 4).repeat(-1, 2),
    lambda m: m.repeat_interleave(m.ones(3), -1), lambda m: m.repeat_interleave(m.tensor([1, -1])),
    lambda m: m.repeat_interleave(m.tensor([[1]])), lambda m: m.repeat_interleave(m.tensor([1.0])),
    lambda m: m.repeat_interleave(m.ones(3), 2, 0, output_size=3),
    lambda m: m.repeat_interleave(m.ones(3), m.tensor([1, 2, 1]), 0, output_size=3),
    lambda m: m.broadcast_tensors(m.ones(3, 4), m.ones(3)), lambda m: m.broadcast_shapes((3, 4), (3,)),
    lambda m: m.broadcast_shapes((3, -1)), lambda m: m.meshgrid(m.ones(2, 2), indexing="ij"),
    lambda m: m.meshgrid(m.ones(2), indexing="foo"), lambda m: m.meshgrid(m.ones(2), m.ones(2, dtype=m.float64), indexing="ij"),
    lambda m: m.tril(m.ones(3)), lambda m: m.tril(m.ones(3, 3, dtype=m.float8_e4m3fn)),
    lambda m: m.tril_indices(-1, 3), lambda m: m.tril_indices(3, 3, dtype=m.float32),
    lambda m: m.triu_indices(3, 3, dtype=m.int16), lambda m: m.tril(m.ones(3, 3), out=m.empty(0, dtype=m.float64)),
    lambda m: m.diag(m.ones(2, 2, 2)), lambda m: m.diag(m.ones(2, 2), out=m.empty(0, dtype=m.int64)),
    lambda m: m.trace(m.ones(3)), lambda m: m.trace(m.ones(2, 2, dtype=m.bool)), lambda m: m.block_diag(m.ones(2, 2, 2)),
    lambda m: m.cartesian_prod(m.ones(2, 2)), lambda m: m.cartesian_prod(), lambda m: m.combinations(m.ones(3), -1),
    lambda m: m.combinations(m.ones(2, 2)), lambda m: m.diag_embed(m.ones(3), 0, 0, 0),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_as_torch(i):
    _, et = outcome(lambda: ERRORS[i](torch))
    _, ee = outcome(lambda: ERRORS[i](ember))
    assert et is not None and ee is not None, (et, ee)
    # libtorch prints a tensor in a message in its C++ format; the rest must match
    assert type(ee) is type(et) and str(ee).split(" but got: ")[0] == str(et).split(" but got: ")[0], (ee, et)
    assert " but got: " in str(et) or str(ee) == str(et), (ee, et)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_repeat_interleave_one_argument(dtype):
    for counts, size in (([1, 0, 3], None), ([2, 2], 4), ([], None)):
        e = ember.repeat_interleave(ember.tensor(counts, dtype=getattr(ember, dtype)), output_size=size)
        t = torch.repeat_interleave(torch.tensor(counts, dtype=getattr(torch, dtype)), output_size=size)
        assert_same(e, t)


@pytest.mark.parametrize("fn", ["tril_indices", "triu_indices"])
def test_triangle_indices(fn):
    for args in ((3, 4), (4, 3, 1), (3, 4, -2), (0, 0), (3, 3, 10), (3, 3, -10), (5, 1, 0)):
        for dtype in ("int64", "int32"):
            e = getattr(ember, fn)(*args, dtype=getattr(ember, dtype))
            t = getattr(torch, fn)(*args, dtype=getattr(torch, dtype))
            assert_same(e, t)
    assert_same(getattr(ember, fn)(3, 4, device="cpu"), getattr(torch, fn)(3, 4, device="cpu"))


def test_broadcast_shapes():
    for shapes in (((2,), (3, 1), (1, 1, 1)), ((),), (), (3,), ((1,), (0,)), (3, (2, 1)), (ember.Size([2, 1]), [4]),
                   ((5, 1, 4), None)):
        e, t = ember.broadcast_shapes(*shapes), torch.broadcast_shapes(*[torch.Size(s) if isinstance(s, ember.Size)
                                                                            else s for s in shapes])
        assert isinstance(e, ember.Size) and tuple(e) == tuple(t)


def test_meshgrid_forms_and_warning():
    (e0, t0), (e1, t1) = pair((3,)), pair((4,), seed=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ge = ember.meshgrid(e0, e1)
    assert any("indexing argument" in str(w.message) for w in caught)
    gt = torch.meshgrid(t0, t1, indexing="ij")
    for a, b in zip(ge, gt):
        assert_same(a, b)
    for a, b in zip(ember.meshgrid([e0, e1], indexing="xy"), torch.meshgrid([t0, t1], indexing="xy")):
        assert_same(a, b)


@pytest.mark.parametrize("name", ["tril_", "triu_"])
def test_triangle_in_place_keeps_layout(name):
    for k in (0, 1, -2):
        e, t = pair((4, 3))
        e, t = e.t(), t.t()  # non-contiguous
        re, rt = getattr(e, name)(k), getattr(t, name)(k)
        assert re is e and rt is t
        assert_same(e, t)
        e, t = pair((2, 3, 4))
        e, t = e.permute(1, 0, 2), t.permute(1, 0, 2)  # no (B, R, C) view: computed, then copied back
        getattr(e, name)(k), getattr(t, name)(k)
        assert_same(e, t)


def test_triangle_grad_and_in_place_autograd():
    e, t = pair()
    for m, x in ((ember, e), (torch, t)):
        x.requires_grad_()
        y = x * 2
        y.tril_(1)
        assert y.grad_fn.name() == "TrilBackward0"
        y.sum().backward()
    assert_same(e.grad, t.grad)


def test_out_forms():
    e, t = pair()
    for name, args in (("tril", (1,)), ("triu", (-1,)), ("diag", ()), ("hstack", ()), ("vstack", ()), ("dstack", ()),
                       ("column_stack", ()), ("row_stack", ())):
        joined = name.endswith("stack")
        oe, ot = ember.empty(0), torch.empty(0)
        re = getattr(ember, name)([e, e] if joined else e, *args, out=oe)
        rt = getattr(torch, name)([t, t] if joined else t, *args, out=ot)
        assert re is oe and rt is ot
        assert_same(oe, ot)


def test_repeat_interleave_method_and_tensor_repeats():
    e, t = pair()
    assert_same(e.repeat_interleave(2), t.repeat_interleave(2))
    assert_same(e.repeat_interleave(ember.tensor([1, 2, 3, 0]), dim=1),
                t.repeat_interleave(torch.tensor([1, 2, 3, 0]), dim=1))
    assert_same(e.repeat_interleave(ember.tensor(2), dim=0, output_size=6),
                t.repeat_interleave(torch.tensor(2), dim=0, output_size=6))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float16", "bfloat16", "float64", "float8_e4m3fn"])
def test_copies_of_every_dtype(dtype):
    e, t = pair((3, 4), "float32")
    e, t = e.to(getattr(ember, dtype)), t.to(getattr(torch, dtype))
    fns = [lambda m, x: m.flip(x, (0,)), lambda m, x: m.roll(x, 2), lambda m, x: x.repeat(2, 1),
           lambda m, x: m.diag_embed(x), lambda m, x: m.block_diag(x, x)]
    if not dtype.startswith("float8"):  # torch flips float8 along the outer dims only ("flip_cpu" not implemented)
        fns.append(lambda m, x: m.rot90(x))
    for fn in fns:
        assert_same(fn(ember, e), fn(torch, t))


def test_large_layouts():
    # the paths the kernels take on bigger tensors (parallel rows, long runs)
    e, t = pair((64, 300, 17))
    e, t = e.transpose(0, 2), t.transpose(0, 2)
    for fn in (lambda m, x: m.flip(x, (2,)), lambda m, x: m.roll(x, (5, -7), (1, 2)), lambda m, x: m.tril(x, 3),
               lambda m, x: m.triu(x.contiguous(), -3), lambda m, x: x.repeat(2, 1, 3), lambda m, x: m.rot90(x, 1, (1, 2))):
        assert_same(fn(ember, e), fn(torch, t))


FORMS = [
    lambda m, x: x.flip(dims=(0,)), lambda m, x: x.flip(0, 1), lambda m, x: m.flip(x, 0), lambda m, x: x.repeat(repeats=(2, 1)),
    lambda m, x: x.repeat([2, 1]), lambda m, x: x.tile(dims=(2,)), lambda m, x: m.tile(x, dims=(2,)), lambda m, x: m.tile(x, 2),
    lambda m, x: x.broadcast_to(size=(2, 3, 4)), lambda m, x: m.broadcast_to(x, 4),
    lambda m, x: m.tensor_split(x, indices_or_sections=2), lambda m, x: m.tensor_split(x, sections=2, dim=1),
    lambda m, x: x.tensor_split(indices=[1]), lambda m, x: m.tensor_split(x, tensor_indices_or_sections=m.tensor([1, 2])),
    lambda m, x: m.tensor_split(x, None), lambda m, x: m.hsplit(x, sections=2), lambda m, x: x.vsplit(indices=[1]),
    lambda m, x: m.rot90(x, k=1, dims=[0, 1]), lambda m, x: m.rot90(x, 1, 0), lambda m, x: m.roll(x, shifts=1),
    lambda m, x: m.roll(x, (1,), 0), lambda m, x: m.repeat_interleave(x, repeats=2, dim=0),
    lambda m, x: m.repeat_interleave(x, None), lambda m, x: x.repeat_interleave(repeats=2, dim=0, output_size=6),
    lambda m, x: m.combinations(x[0], r=2, with_replacement=True), lambda m, x: m.atleast_1d([x, x]),
    lambda m, x: m.broadcast_tensors([x]), lambda m, x: m.block_diag([x]), lambda m, x: m.meshgrid(tensors=[x[0]], indexing="ij"),
    lambda m, x: m.hstack(tensors=[x]), lambda m, x: m.diag_embed(x, offset=1, dim1=0, dim2=2), lambda m, x: x.tril(diagonal=1),
    lambda m, x: m.triu_indices(3, 3, 0, dtype=m.int32), lambda m, x: x.diag(diagonal=1),
]


@pytest.mark.parametrize("i", range(len(FORMS)))
def test_argument_forms_as_torch(i):
    e, t = pair()
    (re, ee), (rt, et) = outcome(lambda: FORMS[i](ember, e)), outcome(lambda: FORMS[i](torch, t))
    assert type(ee) is type(et), (ee, et)
    if et is not None:
        return
    for a, b in zip(re if isinstance(re, tuple) else [re], rt if isinstance(rt, tuple) else [rt]):
        assert_same(a, b)


EDGES = [
    lambda m, s, x: m.repeat_interleave(s, 2, dim=0), lambda m, s, x: m.repeat_interleave(s, 2),
    lambda m, s, x: m.repeat_interleave(x, 0, 1), lambda m, s, x: m.repeat_interleave(m.ones(0, 3), 2, 0),
    lambda m, s, x: m.repeat_interleave(s, m.tensor(2), dim=0), lambda m, s, x: m.roll(x, -5, -1),
    lambda m, s, x: m.roll(s, 1, 0), lambda m, s, x: m.flip(s, (0,)), lambda m, s, x: m.tile(s, ()),
    lambda m, s, x: x.repeat(0, 2), lambda m, s, x: m.diag_embed(s), lambda m, s, x: m.diagflat(m.ones(0)),
    lambda m, s, x: m.tril(x, 100), lambda m, s, x: m.triu(x, -100), lambda m, s, x: m.trace(m.ones(0, 0)),
    lambda m, s, x: m.block_diag(m.ones(0), m.ones(2, 2)), lambda m, s, x: m.cartesian_prod(m.ones(0), m.ones(2)),
    lambda m, s, x: m.combinations(m.ones(0)), lambda m, s, x: m.combinations(x[0], 1),
    lambda m, s, x: m.meshgrid(s, x[0], indexing="xy"), lambda m, s, x: m.atleast_3d(m.ones(1, 2, 3, 4)),
    lambda m, s, x: m.tensor_split(x, [-1, 2], 1), lambda m, s, x: m.tensor_split(x, 6, 1), lambda m, s, x: m.hsplit(x, 0),
    lambda m, s, x: m.rot90(x, 1, (-1, -2)), lambda m, s, x: m.rot90(x, 1, (0, 2)), lambda m, s, x: m.rot90(x, 1, (0, -2)),
    lambda m, s, x: m.column_stack([x[:, 0], x.to(m.int64)]), lambda m, s, x: m.hstack([x.to(m.int8), x.to(m.bool)]),
    lambda m, s, x: m.broadcast_tensors(x.to(m.int8), x[0]),
]


@pytest.mark.parametrize("i", range(len(EDGES)))
def test_edge_cases_as_torch(i):
    (e, t), (es, ts) = pair(), pair((), seed=1)
    (re, ee), (rt, et) = outcome(lambda: EDGES[i](ember, es, e)), outcome(lambda: EDGES[i](torch, ts, t))
    assert type(ee) is type(et) and (et is None or str(ee) == str(et)), (ee, et)
    for a, b in zip(re if isinstance(re, tuple) else [re], rt if isinstance(rt, tuple) else [rt]):
        if b is not None:
            assert_same(a, b)

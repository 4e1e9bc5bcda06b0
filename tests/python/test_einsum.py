"""einsum against torch: equation forms (implicit/explicit output, ellipsis, diagonals, traces, sums), the list and
sublist call forms, node names, views, errors with their messages, dtypes and gradients."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome

RNG = np.random.default_rng(0)

EQUATIONS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ij->ji", [(3, 4)]), ("ij", [(3, 4)]),
    ("ji", [(3, 4)]), ("ij->", [(3, 4)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("iij->j", [(3, 3, 4)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]), ("i,j", [(3,), (4,)]), ("i,i", [(3,), (3,)]), ("i,i->i", [(3,), (3,)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]), ("bhqk,bhkd->bhqd", [(2, 3, 4, 6), (2, 3, 6, 5)]),
    ("...ij,...jk", [(2, 3, 4), (4, 5)]), ("a...,...b->...ab", [(2, 3, 4), (3, 4, 5)]), ("...", [(2, 3)]),
    ("...ii->...i", [(2, 3, 3)]), ("i...->...", [(3, 2, 4)]), ("ijk,ik->j", [(2, 3, 4), (2, 4)]),
    ("ij,kl->", [(2, 3), (4, 5)]), ("ij,jk->ik", [(1, 4), (4, 5)]), ("bij,bjk->bik", [(1, 2, 3), (4, 3, 2)]),
    ("ij,jk->ik", [(0, 4), (4, 5)]), ("ij,jk->ik", [(3, 0), (0, 5)]), ("ij,jk->ik", [(3, 4), (4, 0)]),
    ("i j , j k -> i k", [(3, 4), (4, 5)]), ("Ab,bC->AC", [(2, 3), (3, 4)]), ("ij,ji->", [(3, 4), (4, 3)]),
    ("ij,j->i", [(3, 4), (4,)]), ("i,ij->j", [(3,), (3, 4)]), (",ij->ij", [(), (3, 4)]), ("ij,jj->i", [(3, 4), (4, 4)]),
]
CHAINS = [("ij,jk,kl->il", [(2, 3), (3, 40), (40, 2)]), ("i,i,i->i", [(3,), (3,), (3,)]),
          ("ab,cd,ef,bd->acef", [(2, 3), (4, 5), (2, 2), (3, 5)]), ("ij,jk,kl", [(5, 2), (2, 6), (6, 3)]),
          ("a,b,c->abc", [(2,), (3,), (4,)])]


def operands(shapes, dtype="float64"):
    arrays = [RNG.uniform(-3, 3, s) for s in shapes]
    if dtype not in ("float16", "bfloat16", "float32", "float64"):
        arrays = [np.round(a) for a in arrays]
    return ([ember.from_numpy(a).to(getattr(ember, dtype)) for a in arrays],
            [torch.from_numpy(a).to(getattr(torch, dtype)) for a in arrays])


@pytest.mark.parametrize("equation,shapes", EQUATIONS + CHAINS, ids=lambda v: str(v))
def test_equations_match_torch(equation, shapes):
    e, t = operands(shapes)
    expected = torch.einsum(equation, *t)
    got = ember.einsum(equation, *e)
    assert_same(got, expected, check_strides=(equation, shapes) not in CHAINS, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32"])
def test_dtypes(dtype):
    for equation, shapes in EQUATIONS[:20]:
        e, t = operands(shapes, dtype)
        tol = {"float16": 1e-2, "bfloat16": 1e-1}.get(dtype, 1e-5)
        assert_same(ember.einsum(equation, *e), torch.einsum(equation, *t), rtol=tol, atol=tol)


def test_bool_without_a_product_and_with_one():
    e, t = operands([(3, 3)], "bool")
    for equation in ("ij->ji", "ii->i", "ij"):
        assert_same(ember.einsum(equation, *e), torch.einsum(equation, *t))
    e, t = operands([(3, 4), (4, 5)], "bool")
    (_, te), (_, ee) = outcome(lambda: torch.einsum("ij,jk", *t)), outcome(lambda: ember.einsum("ij,jk", *e))
    assert type(ee) is type(te) is NotImplementedError and str(ee) == str(te)


def test_call_forms():
    e, t = operands([(3, 4), (4, 5)])
    assert_same(ember.einsum("ij,jk", e), torch.einsum("ij,jk", t))
    assert_same(ember.einsum("ij,jk", tuple(e)), torch.einsum("ij,jk", tuple(t)))
    assert_same(ember.einsum(e[0], [0, 1], e[1], [1, 2]), torch.einsum(t[0], [0, 1], t[1], [1, 2]))
    assert_same(ember.einsum(e[0], [0, 1], e[1], [1, 2], [2, 0]), torch.einsum(t[0], [0, 1], t[1], [1, 2], [2, 0]))
    e, t = operands([(2, 3, 4)])
    assert_same(ember.einsum(e[0], [..., 51]), torch.einsum(t[0], [..., 51]))
    assert_same(ember.einsum(e[0], [25, ...], [...]), torch.einsum(t[0], [25, ...], [...]))


def test_views_and_node_names():
    e, t = operands([(3, 4), (4, 5)])
    e = [x.requires_grad_() for x in e]
    t = [x.requires_grad_() for x in t]
    for equation, n in [("ij,jk->ik", 2), ("ij->ji", 1), ("ij->", 1), ("ij,ij->ij", 1), ("ij,kj->ik", 1),
                        ("ij,jk", 2), ("ij->j", 1)]:
        args_e = e[:n] if n == 2 else [e[0]] * (equation.count(",") + 1)
        args_t = t[:n] if n == 2 else [t[0]] * (equation.count(",") + 1)
        got, expected = ember.einsum(equation, *args_e), torch.einsum(equation, *args_t)
        assert got.grad_fn.name() == expected.grad_fn.name(), equation
    x = ember.ones(3, 4)
    assert ember.einsum("ij->ji", x).data_ptr() == x.data_ptr()  # a permutation is a view


@pytest.mark.parametrize("equation,shapes", [q for q in EQUATIONS + CHAINS if 0 not in sum(q[1], ())],
                         ids=lambda v: str(v))
def test_gradients_match_torch(equation, shapes):
    e, t = operands(shapes)
    e = [x.requires_grad_() for x in e]
    t = [x.requires_grad_() for x in t]
    re_, rt = ember.einsum(equation, *e), torch.einsum(equation, *t)
    g = RNG.uniform(-1, 1, tuple(rt.shape))
    re_.backward(ember.from_numpy(g))
    rt.backward(torch.from_numpy(g))
    for a, b in zip(e, t):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_gradcheck():
    e, _ = operands([(2, 3, 3), (3, 4)])
    e = [x.requires_grad_() for x in e]
    assert ember.autograd.gradcheck(lambda a, b: ember.einsum("bii,ij->bj", a, b), e)


ERRORS = [
    ("ij,jk->ik", [(3, 4)]), ("ij", [(3, 4), (4, 5)]), ("ij->ik", [(3, 4)]), ("ij->ii", [(3, 4)]),
    ("ijk", [(3, 4)]), ("i", [(3, 4)]), ("i.j", [(3, 4)]), ("...i...", [(3, 4)]), ("ij->..", [(3, 4)]),
    ("ij->...i...", [(3, 4)]), ("i1", [(3, 4)]), ("ij->i1", [(3, 4)]), ("ii", [(3, 4)]),
    ("ij,jk", [(3, 4), (5, 6)]), ("...i,...i", [(2, 3), (4, 3)]), ("ij,jk", [(3, 4), (4,)]),
    ("ij,jk->ik", [(3, 4), (2, 4, 5)]),
]


@pytest.mark.parametrize("equation,shapes", ERRORS, ids=lambda v: str(v))
def test_errors_match_torch(equation, shapes):
    e, t = operands(shapes)
    (_, te), (_, ee) = outcome(lambda: torch.einsum(equation, *t)), outcome(lambda: ember.einsum(equation, *e))
    assert te is not None and ee is not None, (te, ee)
    assert type(ee) is type(te) and str(ee) == str(te)


def test_argument_errors():
    x = ember.ones(3)
    for args in [("i",), (x,), (x, [0], ember.ones(3), ["a"]), (x, [52])]:
        (_, te), (_, ee) = outcome(lambda: torch.einsum(*[torch.ones(3) if a is x else a for a in args])), \
            outcome(lambda: ember.einsum(*args))
        assert type(ee) is type(te), (args, te, ee)
    (_, te), (_, ee) = outcome(lambda: torch.einsum("ij,jk", torch.ones(2, 3), torch.ones(3, 2, dtype=torch.float64))), \
        outcome(lambda: ember.einsum("ij,jk", ember.ones(2, 3), ember.ones(3, 2, dtype=ember.float64)))
    assert type(ee) is type(te) and str(ee) == str(te)


def test_attention_scores_one_bmm_without_copies():
    """'bhqd,bhkd->bhqk' reshapes both operands without copying (q is (B*H, Q, D) as is, k a transposed view)."""
    q, k = (RNG.standard_normal((2, 3, 16, 8)).astype(np.float32) for _ in range(2))
    got = ember.einsum("bhqd,bhkd->bhqk", ember.from_numpy(q), ember.from_numpy(k))
    np.testing.assert_allclose(got.numpy(), np.einsum("bhqd,bhkd->bhqk", q, k), rtol=1e-5, atol=1e-5)
    assert got.is_contiguous()

"""Regressions found in session 21: a crash on group_norm's num_groups=0, and the probes of every torch function and
Tensor method with a sparse argument (tests/python/test_sparse.py covers the sparse ops themselves)."""
import warnings

import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse")


def outcome(f, m):
    try:
        r = f(m)
    except Exception as e:  # noqa: BLE001 - the exception type is what is compared
        return type(e).__name__
    return r.to_dense().tolist() if isinstance(r, (ember.Tensor, torch.Tensor)) else r


def coo(m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return m.sparse_coo_tensor(m.tensor([[0, 1, 2, 0], [2, 0, 1, 2]]), m.tensor([3.0, 4.0, 5.0, 1.0]), (3, 3))


def csr(m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return m.sparse_csr_tensor(m.tensor([0, 1, 2, 3]), m.tensor([2, 0, 1]), m.tensor([3.0, 4.0, 5.0]), (3, 3))


@pytest.mark.parametrize("groups", [0, -1, 2])
def test_group_norm_refuses_bad_group_counts(groups):
    # num_groups=0 divided by zero (SIGFPE) before any check
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match="num groups|divisible"):
            m.group_norm(m.ones(3, 3), groups)
    with pytest.raises(ZeroDivisionError):
        ember.nn.functional.group_norm(ember.ones(3, 3), 0)


CASES = {
    # index_select read the (empty) storage of a sparse tensor: garbage values
    "index_select": lambda m: coo(m).index_select(0, m.tensor([0, 2])),
    "index_select_dense_dim": lambda m: coo(m).index_select(1, m.tensor([2])),
    "getitem": lambda m: coo(m)[0],
    "unsqueeze": lambda m: coo(m).unsqueeze(0),
    # in place, zero-preserving ops need coalesced input (neg_ does not); square_ is pow_
    "sin_uncoalesced": lambda m: coo(m).sin_(),
    "sin_coalesced": lambda m: coo(m).coalesce().sin_(),
    "neg_": lambda m: coo(m).neg_(),
    "square_": lambda m: coo(m).coalesce().square_(),
    # expand-based ops returned dense results for zero repeats
    "repeat": lambda m: coo(m).repeat(0, 1),
    "tile": lambda m: coo(m).tile(0),
    "expand": lambda m: coo(m).expand(3, 3),
    "type_as_dense": lambda m: coo(m).type_as(m.ones(2)),
    "new_empty": lambda m: coo(m).new_empty(2),
    "new_zeros": lambda m: coo(m).new_zeros(2, 2),
    "new_ones": lambda m: coo(m).new_ones(2),
    "randint_like": lambda m: m.randint_like(coo(m), 1),
    "normal": lambda m: m.normal(coo(m), coo(m)),
    "rsub": lambda m: m.rsub(coo(m), coo(m)),
    "dequantize": lambda m: coo(m).dequantize(),
    "csr_is_contiguous": lambda m: csr(m).is_contiguous(),
    "csr_type": lambda m: csr(m).type(),
    "csr_new_zeros": lambda m: csr(m).new_zeros(2),
    "ones_like": lambda m: m.ones_like(coo(m)),
    "fill_": lambda m: coo(m).fill_(1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sparse_arguments_as_torch(name):
    e, t = outcome(CASES[name], ember), outcome(CASES[name], torch)
    # torch's rsub of sparse tensors and normal(sparse, sparse) raise other RuntimeError subclasses than Ember's
    if name in ("rsub", "normal"):
        assert e == "NotImplementedError" and t in ("RuntimeError", "NotImplementedError")
    else:
        assert e == t


def leaf(m):
    return m.tensor([[0.0, 1.0], [2.0, 0.0]], requires_grad=True)


def grad_of(build):
    """The gradient build(m, x) gives x, in each library."""
    out = []
    for m in (ember, torch):
        x = leaf(m)
        build(m, x).sum().backward()
        out.append(x.grad.tolist())
    return out


# found by the sparse fuzz family (tests/fuzz/gen_sparse.py)
FUZZ_CASES = {
    "sum_dim_of_0dim": lambda m: m.tensor(4.0).to_sparse().sum(0),  # crashed (SIGSEGV)
    "select_last_sparse_dim": lambda m: m.tensor([1.0, 0]).to_sparse()[1],  # dense, as torch
    "select_leaves_dense_dims": lambda m: m.tensor([[1.0, 2.0]]).to_sparse(1)[0],
    "keepdim_sum": lambda m: m.sparse_coo_tensor(m.tensor([[1, 1, 0]]), m.tensor([[1.5, -2], [2, 3.0], [-3.75, 3.0]]),
                                                 (2, 2)).sum(-1, keepdim=True)._indices().tolist(),
    "mul_drops_coalesced": lambda m: m.tensor([1.0, 0, 2]).to_sparse().mul_(2).is_coalesced(),
    "transpose_drops_coalesced": lambda m: m.sparse_coo_tensor(m.tensor([[0], [1]]), m.tensor([5.0]),
                                                               (2, 2)).t().is_coalesced(),
    "sub_keeps_minus_zero": lambda m: repr((m.sparse_coo_tensor(m.zeros(1, 0, dtype=m.int64), m.zeros(0, 2), (3, 2))
                                            - m.tensor([[0, -2.0], [0, -3], [0, 0]]).to_sparse(1)).coalesce()),
    "values_not_differentiable": lambda m: leaf(m).to_sparse()._values().requires_grad,
    "mm_one_d": lambda m: m.mm(m.tensor([[1.0, 0]]).to_sparse(), m.ones(2)),
}


@pytest.mark.parametrize("name", sorted(FUZZ_CASES))
def test_sparse_fuzz_findings_as_torch(name):
    e, t = outcome(FUZZ_CASES[name], ember), outcome(FUZZ_CASES[name], torch)
    assert e == t


@pytest.mark.parametrize("build", [
    lambda m, x: m.ones(2, 2) + x.to_sparse().clone().zero_(),  # zero_ was not recorded: ones reached x
    lambda m, x: x.to_sparse().sum(),                            # Tensor.sum: dense, unlike torch.sparse.sum
    lambda m, x: (-x.to_sparse()).to_dense(),
    lambda m, x: (x.to_sparse().t() * 3).to_dense(),
    lambda m, x: x.to_sparse().clone().mul_(2).to_dense(),       # in place with grad raised on the empty storage
    lambda m, x: m.ones(2, 2).add_(x.to_sparse()),
    lambda m, x: m.relu(x.to_sparse()).to_dense(),
])
def test_sparse_gradients_as_torch(build):
    e, t = grad_of(build)
    assert e == t


@pytest.mark.parametrize("op", ["neg", "t", "clone"])
def test_duplicates_get_their_coordinate_gradient_once(op):
    # a duplicated coordinate's gradient reached each duplicate once per duplicate through the values' node
    f = {"neg": lambda s: -s, "t": lambda s: s.t(), "clone": lambda s: s.clone()}[op]
    grads = []
    for m in (ember, torch):
        v = m.tensor([1.0, 2.0, 4.0], requires_grad=True)
        s = m.sparse_coo_tensor(m.tensor([[0, 0, 1], [1, 1, 0]]), v, (2, 2))
        r = f(s)
        (r.to_dense() if r.layout != m.strided else r).sum().backward()
        grads.append(v.grad.tolist())
    assert grads[0] == grads[1]

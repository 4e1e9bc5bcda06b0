"""Regressions found in session 22 by the differential fuzzer: quantized tensors in comparisons (an error instead of
torch's comparison of the dequantized values), fill_ (refused) and copy_ from a non-contiguous float source (accepted
where torch refuses)."""
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

QDTYPES = ["quint8", "qint8", "qint32"]


def q(m, dtype, values=((0.68, -2.0, 3.0), (-3.25, 3.0, 1.0)), scale=0.5, zero_point=3):
    return m.quantize_per_tensor(m.tensor(values), scale, zero_point, getattr(m, dtype))


def outcome(f, m):
    try:
        r = f(m)
    except Exception as e:  # noqa: BLE001 - the exception type is what is compared
        return type(e).__name__
    if isinstance(r, (ember.Tensor, torch.Tensor)):
        return (str(r.dtype).split(".")[-1], (r.int_repr() if r.is_quantized else r).tolist())
    return r


COMPARISONS = {
    "eq_number": lambda m, a: a == 0,
    "eq_float": lambda m, a: a == -2.0,
    "ne_number": lambda m, a: a != 3,
    "lt_number": lambda m, a: a < 1,
    "ge_number": lambda m, a: a >= 1,
    "eq_dense": lambda m, a: a == m.zeros(2, 3),
    "gt_dense_broadcast": lambda m, a: m.gt(a, m.tensor([0.0, -1.0, 2.5])),
    "eq_itself": lambda m, a: a == a,
    "le_unsqueezed_contiguous": lambda m, a: a.unsqueeze(0).contiguous() <= 0,
    "lt_transposed": lambda m, a: a.t() < 0,
}


@pytest.mark.parametrize("dtype", QDTYPES)
@pytest.mark.parametrize("case", sorted(COMPARISONS))
def test_quantized_comparisons_compare_dequantized_values(case, dtype):
    # RuntimeError "empty_strided not supported on quantized tensors" from converting the number to the quantized dtype
    f = COMPARISONS[case]
    assert outcome(lambda m: f(m, q(m, dtype)), ember) == outcome(lambda m: f(m, q(m, dtype)), torch)


@pytest.mark.parametrize("op", ["add", "mul", "sub", "maximum", "atan2", "remainder"])
@pytest.mark.parametrize("other", ["number", "quantized", "float"])
def test_quantized_elementwise_ops_raise_as_torch(op, other):
    # torch: RuntimeError with a number (its conversion), NotImplementedError with a quantized tensor, RuntimeError
    # (promotion) with a float one; maximum and atan2 take no number (TypeError)
    def run(m):
        a = q(m, "quint8")
        return getattr(m, op)(a, {"number": 2, "quantized": a, "float": m.ones(2, 3)}[other])
    assert outcome(run, ember) == outcome(run, torch)


FILLS = {
    "number": lambda m, a: a.fill_(0.5),
    "int": lambda m, a: a.fill_(1),
    "tensor": lambda m, a: a.fill_(m.tensor(0.5)),
    "saturating": lambda m, a: a.fill_(1000.0),
    "row_view": lambda m, a: a[1].fill_(2.0),
    "transposed": lambda m, a: a.t().fill_(0.5),
    "strided": lambda m, a: a[:, ::2].fill_(0.5),
}


@pytest.mark.parametrize("dtype", QDTYPES)
@pytest.mark.parametrize("case", sorted(FILLS))
def test_quantized_fill_quantizes_the_value(case, dtype):
    def run(m):
        a = q(m, dtype).clone()
        FILLS[case](m, a)
        return a
    assert outcome(run, ember) == outcome(run, torch)


def test_per_channel_fill_uses_each_channels_parameters():
    def run(m):
        a = m.quantize_per_channel(m.ones(3, 4), m.tensor([0.5, 1.0, 2.0], dtype=m.float64), m.tensor([0, 1, 2]), 0,
                                   m.qint8)
        return a.fill_(3.0)
    assert outcome(run, ember) == outcome(run, torch)


@pytest.mark.parametrize("source", ["transposed", "strided", "contiguous", "double"])
def test_quantized_copy_from_float_needs_contiguous_operands(source):
    # a transposed float source was quantized and copied where torch refuses
    def run(m):
        dst = q(m, "qint32", values=[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).t().contiguous()
        src = {"transposed": m.arange(6.0).view(2, 3).t().t() * 2,
               "strided": (m.arange(12.0).view(2, 6)[:, ::2]),
               "contiguous": m.arange(6.0).view(2, 3),
               "double": m.arange(6.0, dtype=m.float64).view(2, 3)}[source]
        if source == "transposed":
            dst, src = dst.t(), m.arange(6.0).view(2, 3).t() * 2
        return dst.copy_(src)
    assert outcome(run, ember) == outcome(run, torch)
    with pytest.raises(RuntimeError, match="contiguous and NHWC"):
        q(ember, "quint8").t().copy_(ember.ones(3, 2))


def sparse(m, dense):
    return m.tensor(dense).to_sparse()


@pytest.mark.parametrize("dims", [0, 1, 2])
def test_dense_add_sparse_in_place_every_rank(dims):
    # dense.add_(sparse) scatters the entries in place; a 0-dim sparse tensor (no sparse dims) raised a shape error
    values = {0: 1.68, 1: [0.0, 2.0, 0.0], 2: [[0.0, 1.5], [2.0, 0.0]]}[dims]
    def run(m):
        d = m.ones_like(m.tensor(values, dtype=m.float64))
        d.add_(sparse(m, values).double(), alpha=2)
        return d.add(sparse(m, values).double(), alpha=-0.5)
    assert outcome(run, ember) == outcome(run, torch)


def test_embedding_bag_index_out_of_range_is_a_runtime_error():
    # Ember raised IndexError (embedding's type); torch's embedding_bag raises RuntimeError
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match="valid range|idx"):
            m.nn.functional.embedding_bag(m.tensor([3, 1, 4]), m.ones(4, 2), m.tensor([0, 1]), sparse=True)


def test_gradient_through_an_op_on_csr_values():
    # NegBackward0 of a CSR tensor looked its entries up as if it were COO (IndexError at backward)
    def run(m):
        x = m.tensor([[2.5, 0.0, -3.0], [0.0, 4.0, 0.0]], requires_grad=True)
        (-(x.to_sparse_csr())).values().sum().backward()
        return x.grad
    assert outcome(run, ember) == outcome(run, torch)


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
@pytest.mark.parametrize("bounds", [(-1, 2), (3, 1), (None, 0.25), (-1.5, None), (-2.0, 1e6)])
def test_clamp_in_place_with_number_bounds(bounds, dtype):
    # float tensors with number bounds clamp in place in two passes (no copy); NaN stays, min > max gives max,
    # a bound the dtype cannot hold raises
    def run(m):
        x = m.tensor([float("nan"), -3.0, 0.5, 7.0, -float("inf")], dtype=getattr(m, dtype)).t()
        return m.nan_to_num(x.clamp_(*bounds), nan=123.0)  # NaN compared as a number
    assert outcome(run, ember) == outcome(run, torch)

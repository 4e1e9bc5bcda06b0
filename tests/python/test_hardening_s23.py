"""Regressions found in session 23: by the differential fuzzer (ldexp's out= dtype check comes before its bool exponent
refusal, as torch's) and by an op-by-op speed sweep against torch (loops GCC left scalar: their results must not
change with the vector loops)."""
import pytest
import torch

import ember


def outcome(f, m):
    try:
        r = f(m)
    except Exception as e:  # noqa: BLE001 - the exception type and message are what is compared
        return type(e).__name__, str(e)
    return str(r.dtype), r.tolist()


LDEXP_OUT = {
    "bool exponent, int16 out": lambda m: m.ldexp(m.tensor([1.5], dtype=m.float64), m.tensor([True]),
                                                   out=m.zeros(1, dtype=m.int16)),
    "int exponent, int16 out": lambda m: m.ldexp(m.tensor([1.5], dtype=m.float64), m.tensor([1]),
                                                  out=m.zeros(1, dtype=m.int16)),
    "bool exponent, float out": lambda m: m.ldexp(m.tensor([1.5]), m.tensor([True]), out=m.zeros(1)),
    "float exponent, bool out": lambda m: m.ldexp(m.tensor([1.5]), m.tensor([1.0]), out=m.zeros(1, dtype=m.bool)),
}


@pytest.mark.parametrize("case", list(LDEXP_OUT))
def test_ldexp_out_checks(case):
    assert outcome(LDEXP_OUT[case], ember) == outcome(LDEXP_OUT[case], torch)


# Parameterised activations over signs that alternate at random (the scalar loop's branch) and odd lengths (a vector
# loop's tail), contiguous and strided.
ACTIVATIONS = {
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.03),
    "elu": lambda F, x: F.elu(x, 0.7),
    "hardtanh": lambda F, x: F.hardtanh(x, -0.4, 0.9),
    "threshold": lambda F, x: F.threshold(x, 0.1, -2.0),
    "softshrink": lambda F, x: F.softshrink(x, 0.3),
    "celu": lambda F, x: F.celu(x, 1.5),
}


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_vector_loops(name, dtype, strided):
    x = torch.randn(70001, generator=torch.Generator().manual_seed(1)).to(getattr(torch, dtype))
    if strided:
        x = x[::3]
    e = ember.from_numpy(x.float().numpy()).to(getattr(ember, dtype))
    got = ACTIVATIONS[name](ember.nn.functional, e).float().numpy()
    expected = ACTIVATIONS[name](torch.nn.functional, x).float().numpy()
    assert torch.allclose(torch.from_numpy(got), torch.from_numpy(expected), rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int64", "bool", "float16"])
def test_fill_contiguous_and_strided(dtype):
    for m in (torch, ember):
        x = m.zeros(100003, dtype=getattr(m, dtype))
        x[1::2].fill_(1)
        x[:50001].fill_(True if dtype == "bool" else 1)
        x[::7].zero_()
        if m is torch:
            expected = x.tolist()
    assert x.tolist() == expected


def extreme_rows(dtype):
    """Rows of 200 (the vector search) and 63 (the scalar loop) with ties, signed zeros, infinities and NaNs."""
    g = torch.Generator().manual_seed(3)
    x = torch.randint(-4, 5, (12, 200), generator=g).to(getattr(torch, dtype))
    x[1, 7] = x[1, 150] = 9  # a tie: the first
    x[2, 180] = float("nan")  # a NaN after the extreme
    x[3, 0] = float("nan")  # a NaN first
    x[4] = float("nan")
    x[5, 40:] = 0.0
    x[5, 33] = -0.0
    x[5, :33] = -1.0
    x[6, 199] = float("inf")
    x[7, 100] = float("-inf")
    x[8, 130] = float("nan")
    x[8, 190] = float("nan")
    x[9, 64:] = 5  # the extreme starts a 32-element block
    return x


@pytest.mark.parametrize("width", [200, 63])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("op", ["max", "min", "argmax", "argmin"])
def test_arg_extremum_rows(op, dtype, width):
    x = extreme_rows(dtype)[:, :width]
    e = ember.from_numpy(x.float().numpy()).to(getattr(ember, dtype))
    expected, got = getattr(x, op)(1), getattr(e, op)(1)
    if op.startswith("arg"):
        assert got.tolist() == expected.tolist()
    else:
        assert got.indices.tolist() == expected.indices.tolist()
        assert torch.equal(torch.from_numpy(got.values.float().numpy()).isnan(), expected.values.float().isnan())
        assert torch.equal(torch.from_numpy(got.values.float().numpy()).nan_to_num(7), expected.values.float().nan_to_num(7))


EMPTY_AND_EDGE = {
    # an empty target: torch checks no index, but fails on a filled dim of size 0 (RuntimeError where its restrided
    # view does not fit the storage, else IndexError)
    "index_fill filled dim of size 0": lambda m: m.index_fill(m.zeros(2, 3, 0), 2, m.tensor([0]), 1.0),
    "index_fill other dim of size 0": lambda m: m.zeros(0, 3).index_fill_(1, m.tensor([5]), 1.0),
    "index_fill_ 1-d empty": lambda m: m.zeros(0).index_fill_(0, m.tensor([0]), 1.0),
    "index_fill_ empty index": lambda m: m.zeros(0).index_fill_(0, m.tensor([], dtype=m.int64), 1.0),
    "index_fill_ expanded empty": lambda m: m.tensor([-3], dtype=m.int8).expand(0, 2).index_fill_(
        0, m.tensor([0, 0, 0]), m.tensor(0, dtype=m.uint8)),
    "index_fill_ all dims empty": lambda m: m.zeros(0, 0).index_fill_(0, m.tensor([1]), 1.0),
    # vander with one column is x^0: no graph
    "vander N=1": lambda m: m.vander(m.tensor([2.0, 3.0], requires_grad=True), N=1),
    "vander of one element": lambda m: m.vander(m.tensor([-3.75], dtype=m.float64, requires_grad=True)),
}


@pytest.mark.parametrize("case", list(EMPTY_AND_EDGE))
def test_empty_and_edge(case):
    def summary(m):
        try:
            r = EMPTY_AND_EDGE[case](m)
        except Exception as e:  # noqa: BLE001 - the exception type is what is compared
            return type(e).__name__
        return str(r.dtype), r.tolist(), r.requires_grad
    assert summary(ember) == summary(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_silu_backward_fused(dtype):
    """silu's gradient is one fused pass (Activation::Silu) outside double backward: torch's values, NaN at +-inf."""
    x = torch.randn(10001, generator=torch.Generator().manual_seed(0)) * 4
    x[:4] = torch.tensor([float("inf"), float("-inf"), float("nan"), 0.0])
    g = torch.randn(10001, generator=torch.Generator().manual_seed(1))
    grads = []
    for m, xs, gs in ((torch, x, g), (ember, ember.from_numpy(x.numpy()), ember.from_numpy(g.numpy()))):
        xs = xs.to(getattr(m, dtype)).requires_grad_()
        m.nn.functional.silu(xs).backward(gs.to(getattr(m, dtype)))
        grads.append(torch.from_numpy(xs.grad.float().numpy()) if m is ember else xs.grad.float())
    assert torch.allclose(grads[1], grads[0], rtol=1e-4, atol=1e-6, equal_nan=True)

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

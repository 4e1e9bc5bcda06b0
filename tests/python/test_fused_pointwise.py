"""lerp, addcmul, addcdiv, clamp by numbers and nan_to_num run as one fused pass (src/functors/pointwise.h): torch's
result in every dtype and layout, bitwise (torch's vectorised kernels fuse the multiply-adds, and so do Ember's; clamp
may differ from torch's strided loop in the sign of a zero), torch's result layout, in place through aliased and
overlapping views, and torch's errors."""
import pytest
import torch

import ember

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["int64", "int32", "int8", "uint8"]


def to_ember(t):
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16
        return ember.from_numpy(t.float().numpy()).to(ember.bfloat16)
    return ember.from_numpy(t.numpy())


def to_torch(e):
    return torch.from_numpy(e.float().numpy()).bfloat16() if e.dtype == ember.bfloat16 else torch.from_numpy(e.numpy())


def operands(dtype, layout):
    g = torch.Generator().manual_seed(0)
    tdt = getattr(torch, dtype)

    def make(*shape):
        shape = shape[0] if shape == ((),) else shape
        if dtype in FLOATS:
            return torch.randn(shape, generator=g).to(tdt)
        return torch.randint(0 if dtype == "uint8" else -5, 6, shape, generator=g).to(tdt)

    if layout == "transposed":
        return make(19, 37).t(), make(19, 37).t(), make(19, 37).t()
    if layout == "expanded":
        return make(37, 19), make(37, 19), make(1, 19).expand(37, 19)
    if layout == "offset":
        return make(38, 19)[1:], make(37, 19), make(37, 19)
    if layout == "0-dim weight":
        return make(37, 19), make(37, 19), make(())
    if layout == "0-dim":
        return make(()), make(()), make(())
    if layout == "empty":
        return make(0, 19), make(0, 19), make(0, 19)
    return make(1001), make(1001), make(1001)  # contiguous, with a vector loop's tail


def specials(m, a):
    """a with its elements above 1 made inf, below -1.5 -inf, in between -1.5 and -1 NaN."""
    zero = a * 0  # of a's sign
    return m.where(a > 1, a / zero, m.where(a < -1.5, -a / zero, m.where(a < -1, zero / zero, a)))


OPS = {
    "addcmul": lambda m, a, b, w: m.addcmul(a, b, w, value=0.7 if a.is_floating_point() else 3),
    "addcdiv": lambda m, a, b, w: m.addcdiv(a, b, w.abs() + 1, value=-0.7),
    "lerp": lambda m, a, b, w: m.lerp(a, b, w * 0.7),
    "lerp_number_small": lambda m, a, b, w: m.lerp(a, b, 0.3),
    "lerp_number_large": lambda m, a, b, w: m.lerp(a, b, 0.8),
    "addcmul_": lambda m, a, b, w: a.clone().addcmul_(b, w, value=2),
    "addcdiv_": lambda m, a, b, w: a.clone().addcdiv_(b, w.abs() + 1, value=-0.5),
    "lerp_": lambda m, a, b, w: a.clone().lerp_(b, w * 0.7),
    "lerp_number_": lambda m, a, b, w: a.clone().lerp_(b, 0.6),
    "clamp": lambda m, a, b, w: m.clamp(a * 4, -1.5, 0.5),
    "clamp_min": lambda m, a, b, w: a.clamp(min=0.25),
    "clamp_crossed": lambda m, a, b, w: a.clamp(1.0, -1.0),
    "clamp_": lambda m, a, b, w: a.clone().clamp_(max=-0.125),
    "clamp_nan_bound": lambda m, a, b, w: m.clamp(a, float("nan"), 1.0),
    "nan_to_num": lambda m, a, b, w: m.nan_to_num(specials(m, a), nan=0.5, neginf=-7.0),
    "nan_to_num_default": lambda m, a, b, w: specials(m, a).nan_to_num(),
}
LAYOUTS = ["contiguous", "transposed", "expanded", "offset", "0-dim weight", "0-dim", "empty"]


# lerp and addcdiv refuse integers (test_errors); integer clamp and nan_to_num are not fused
OP_DTYPES = [(op, dtype) for op in OPS for dtype in FLOATS + (INTS if op.startswith("addcmul") else [])]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op,dtype", OP_DTYPES)
def test_bitwise_torch(op, dtype, layout):
    a, b, w = operands(dtype, layout)
    expected = OPS[op](torch, a, b, w)
    got = OPS[op](ember, *(to_ember(t) for t in (a, b, w)))
    assert str(got.dtype) == str(expected.dtype)
    assert tuple(got.shape) == tuple(expected.shape)
    if expected.numel():  # numpy gives empty arrays zero strides
        assert tuple(got.stride()) == tuple(expected.stride())
    got = to_torch(got)
    assert torch.equal(got.isnan(), expected.isnan())
    assert torch.equal(got.nan_to_num(0.5), expected.nan_to_num(0.5))


# In place over views of one buffer: self is the input it reads, or partly overlaps another input (refused).
ALIASED = {
    "addcmul_ self in every place": lambda m: (lambda x: (x.addcmul_(x, x, value=0.5), x)[1])(m.arange(6.0)),
    "lerp_ self as end": lambda m: (lambda x: (x.lerp_(x, 0.25), x)[1])(m.arange(6.0)),
    "addcdiv_ overlapping views": lambda m: (lambda x: (x[1:].addcdiv_(x[:-1], x[:-1] + 1), x)[1])(m.arange(6.0)),
    "lerp_ overlapping views": lambda m: (lambda x: (x[1:].lerp_(x[:-1], 0.5), x)[1])(m.arange(6.0)),
    "addcmul_ transposed self": lambda m: (lambda x: (x.t().addcmul_(x, x.t()), x)[1])(m.arange(9.0).reshape(3, 3)),
}


def outcome(f, m):
    try:
        r = f(m)
    except Exception as e:  # noqa: BLE001 - the exception type and message are what is compared
        return type(e).__name__, str(e)
    return str(r.dtype).split(".")[-1], r.tolist()


@pytest.mark.parametrize("case", list(ALIASED))
def test_aliased_in_place(case):
    assert outcome(ALIASED[case], ember) == outcome(ALIASED[case], torch)


ERRORS = [
    "m.lerp(m.ones(3, dtype=m.int32), m.ones(3, dtype=m.int32), 0.5)",
    "m.lerp(m.ones(3), m.ones(3), m.ones(3, dtype=m.float64))",
    "m.lerp(m.ones(3), m.ones(3, dtype=m.float64), 0.5)",
    "m.lerp(m.ones(3, dtype=m.float16), m.ones(3, dtype=m.float16), 1e10)",
    "m.lerp(m.ones(3), m.ones(2), 0.5)",
    "m.ones(1).lerp_(m.ones(3), 0.5)",
    "m.ones(3, dtype=m.float8_e4m3fn).lerp_(m.ones(3, dtype=m.float8_e4m3fn), 0.5)",
    "m.addcmul(m.ones(3, dtype=m.bool), m.ones(3, dtype=m.bool), m.ones(3, dtype=m.bool))",
    "m.addcmul(m.ones(3, dtype=m.int8), m.ones(3, dtype=m.int8), m.ones(3, dtype=m.int8), value=1000)",
    "m.addcmul(m.ones(3), m.ones(3), m.ones(3), value=1e300)",
    "m.ones(3, dtype=m.int32).addcmul_(m.ones(3), m.ones(3))",
    "m.ones(3, dtype=m.int32).addcdiv_(m.ones(3, dtype=m.int32), m.ones(3, dtype=m.int32))",
    "m.ones(1).addcmul_(m.ones(3), m.ones(3))",
    "m.ones(3).expand(2, 3).addcmul_(m.ones(2, 3), m.ones(2, 3))",
    "m.addcdiv(m.ones(3, dtype=m.float8_e5m2), m.ones(3, dtype=m.float8_e5m2), m.ones(3, dtype=m.float8_e5m2))",
    "m.addcmul(m.ones(3, dtype=m.float8_e5m2), m.ones(3, dtype=m.float8_e5m2), m.ones(3, dtype=m.float8_e5m2))",
    # accepted: integer value truncated (0.5 scales by 0), a mixed promotion, a bool value
    "m.addcmul(m.ones(3, dtype=m.int8), m.ones(3, dtype=m.int8), m.ones(3, dtype=m.int8), value=0.5)",
    "m.addcmul(m.ones(3, dtype=m.int32), m.ones(3), m.ones(3, dtype=m.int64), value=True)",
    "m.lerp(m.ones(3), m.ones(3), m.tensor(0.5, dtype=m.float64))",
    "m.clamp(m.ones(3, dtype=m.float16), 1e6)",
    "m.clamp(m.ones(3), -1e300)",
    "m.nan_to_num(m.tensor([float('nan'), float('inf')], dtype=m.float16), 1e6, 1e300)",
]


@pytest.mark.parametrize("src", ERRORS)
def test_errors(src):
    assert outcome(lambda m: eval(src), ember) == outcome(lambda m: eval(src), torch)


def test_failed_in_place_leaves_self():
    x = ember.ones(3, dtype=ember.int32)
    with pytest.raises(RuntimeError):
        x.addcmul_(ember.ones(3), ember.full((3,), 2.0))
    assert x.tolist() == [1, 1, 1]

"""Op database entries of the op-surface work: inverse hyperbolic and special functions, torch's aliases, addcmul/addcdiv,
one-sided clamps, logaddexp, gcd/lcm, heaviside, ldexp, float_power, the infinity tests and aminmax."""
from opdb import (DTYPES, FLOATS, INTS, NUMERIC, OpInfo, Sample, T, _BY_NAME, alias, binary, fixed, unary, x34)

SPECIAL_FNS = [
    unary("asinh"), unary("acosh", low=1.05, high=4.0), unary("atanh", low=-0.95, high=0.95),
    unary("deg2rad"), unary("rad2deg"), unary("sinc"), unary("sgn"),
    unary("lgamma"), unary("digamma"), unary("erfinv", low=-0.95, high=0.95), unary("i0"),
    *[unary(n, grad=False) for n in ("isneginf", "isposinf")],
]
_NEW = {op.name: op for op in SPECIAL_FNS}

ALIASES = [
    *[alias(a, _NEW.get(n) or _BY_NAME[n]) for a, n in (
        ("arccos", "acos"), ("arcsin", "asin"), ("arctan", "atan"), ("arccosh", "acosh"), ("arcsinh", "asinh"),
        ("arctanh", "atanh"), ("absolute", "abs"), ("negative", "neg"), ("fix", "trunc"), ("subtract", "sub"),
        ("not_equal", "ne"), ("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"))],
    unary("positive", NUMERIC),
]

BINARY = [
    *[binary(n, FLOATS, scalars=()) for n in ("logaddexp", "logaddexp2")],
    *[binary(n, INTS, grad=False, scalars=()) for n in ("gcd", "lcm")],
    binary("heaviside", grad=False, scalars=()),
    binary("ldexp", scalars=(), rhs_low=-4.0, rhs_high=4.0),
    binary("float_power", low=0.2, rhs_low=0.0, rhs_high=3.0, scalars=(2, -2, 2.5)),
]


def addc_samples(divisor):
    """input, tensor1, tensor2 with layouts, broadcasting, 0-dim and empty operands, and value=."""
    def b(shape, layout="contiguous", seed=2):
        return T(shape, layout, seed=seed, low=0.5, high=3.0) if divisor else T(shape, layout, seed=seed)
    return fixed(Sample(x34(), x34(seed=1), b((3, 4))),
                 Sample(x34("transposed"), T((4,), seed=1), b((3, 4), "offset"), value=0.5),
                 Sample(x34("expanded"), x34("transposed", seed=1), b((3, 1)), value=2),
                 Sample(T(()), x34(seed=1), b((3, 1), "expanded")),
                 Sample(T((0, 4)), T((0, 4), seed=1), b((4,))),
                 Sample(T((4,)), x34(seed=1), b((3, 4)), value=-1.5))


def one_bound(dtype):
    yield from (Sample(x34(), 0.5), Sample(x34("transposed"), T((4,), seed=1)), Sample(T(()), -1),
                Sample(T((0, 4)), 1), Sample(x34("offset"), T((), seed=2)), Sample(T((4,)), x34(seed=3)))


AMINMAX = [
    Sample(x34()), Sample(x34("transposed"), dim=1), Sample(T((2, 3, 4), "offset"), dim=-1, keepdim=True),
    Sample(x34(), keepdim=True), Sample(T(())), Sample(T(()), dim=0), Sample(T((0, 3)), dim=1),
    Sample(T((0, 3)), raises=True), Sample(T((0, 3)), dim=0, raises=True), Sample(x34(), dim=2, raises=True),
]

OTHERS = [
    OpInfo("addcmul", addc_samples(False), dtypes=NUMERIC, grad=True),
    OpInfo("addcdiv", addc_samples(True), dtypes=FLOATS, grad=True),
    *[OpInfo(n, one_bound, dtypes=NUMERIC, grad=True) for n in ("clamp_min", "clamp_max")],
    OpInfo("aminmax", fixed(*AMINMAX), dtypes=DTYPES, grad=True, check_strides=False),
]

ENTRIES = SPECIAL_FNS + ALIASES + BINARY + OTHERS

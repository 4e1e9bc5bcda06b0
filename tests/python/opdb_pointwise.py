"""Op database entries of the op-surface work: inverse hyperbolic and special functions, torch's aliases, addcmul/addcdiv,
one-sided clamps, logaddexp, gcd/lcm, heaviside, ldexp, float_power, the infinity tests and aminmax."""
from opdb import (DTYPES, FLOATS, INTS, NUMERIC, OpInfo, Sample, T, XFail, _BY_NAME, alias, binary, fixed, unary,
                  x34)

# torch's deg2rad/rad2deg (a mul by a number) and frexp give an empty (0, 3) input's result strides (0, 0)
EMPTY_STRIDES = XFail("ember.deg2rad(ember.from_numpy(np.zeros((0, 3)))).stride() is (3, 1), torch's (0, 0) (a mul by a "
                      "number; also rad2deg and frexp)", sample="contiguous0x3", forms=("fn", "method", "inplace"))
FREXP_EMPTY_STRIDES = XFail(EMPTY_STRIDES.reason, FLOATS, sample="contiguous0x3", forms=("fn", "method"))
SPECIAL_FNS = [
    unary("asinh"), unary("acosh", low=1.05, high=4.0), unary("atanh", low=-0.95, high=0.95),
    *[unary(n, xfails=[EMPTY_STRIDES]) for n in ("deg2rad", "rad2deg")], unary("sinc"), unary("sgn"),
    # digamma's float32 gradient: torch's float trigamma against ember's double one, near the poles
    unary("lgamma"), unary("digamma", tol={"float32": (1e-4, 1e-5)}, xfails=[XFail(
        "x = ember.tensor([-1e-30], requires_grad=True); ember.digamma(x).backward(); x.grad is inf, torch's float "
        "trigamma gives -3.8e30 (its reflection in float32; ember's in double)", ("float32",), sample="special20",
        forms=("grad",))]), unary("erfinv", low=-0.95, high=0.95), unary("i0"),
    *[unary(n, grad=False) for n in ("isneginf", "isposinf")],
    unary("i1", torch_fn="special.i1", ember_fn="special.i1"),
    # polygamma(1, x): digamma's derivative; its own derivative (polygamma(2, x)) is not implemented
    # positive samples: at the poles (non-positive integers) torch's float32 and ember's double reflection differ
    OpInfo("trigamma", fixed(Sample(T((3, 4), low=0.1, high=3.0), 1), Sample(T((3, 4), "transposed", low=0.6, high=3.0), 1),
                             Sample(T((), low=0.5, high=2.0), 1),
                             Sample(T((0, 3)), 1), Sample(T((3, 4), low=0.1, high=3.0), 0), Sample(x34(), -1, raises=True)),
           torch_fn=None, method="polygamma", grad=False),
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
    binary("ldexp", scalars=(), rhs_low=-4.0, rhs_high=4.0, xfails=[XFail(
        "x = ember.rand(3, dtype=ember.float64); e = ember.tensor(0.3); ember.ldexp(x, e) rounds 2^e to float32 (as torch "
        "does for a float32 x, or a dimensioned e); torch's is exact for a float64 x and a 0-dim e", ("float64",),
        sample=tuple(f"float64,contiguous0dim:{d}" for d in ("float16", "bfloat16", "float32")))]),
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
                 Sample(T((4,)), x34(seed=1), b((3, 4)), value=2.5))


def one_bound(dtype):
    yield from (Sample(x34(), 0.5), Sample(x34("transposed"), T((4,), seed=1)), Sample(T(()), -1), Sample(T((0, 4)), 1),
                Sample(x34("offset"), T((), seed=2)), Sample(T((4,)), x34(seed=3)))


AMINMAX = [
    Sample(x34()), Sample(x34("transposed"), dim=1), Sample(T((2, 3, 4), "offset"), dim=-1, keepdim=True),
    Sample(x34(), keepdim=True), Sample(T(())), Sample(T(()), dim=0), Sample(T((0, 3)), dim=1),
    Sample(T((0, 3)), raises=True), Sample(T((0, 3)), dim=0, raises=True), Sample(x34(), dim=2, raises=True),
]

OTHERS = [
    OpInfo("addcmul", addc_samples(False), dtypes=NUMERIC, grad=True),
    OpInfo("addcdiv", addc_samples(True), dtypes=FLOATS, grad=True),
    *[OpInfo(n, one_bound, dtypes=DTYPES, grad=True) for n in ("clamp_min", "clamp_max")],
    OpInfo("aminmax", fixed(*AMINMAX), dtypes=DTYPES, grad=True, check_strides=False),
]

MM_TOL = {"float16": (2e-3, 1e-2), "bfloat16": (1.6e-2, 1e-1), "float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)}
EMPTY_BOOL_DOT = XFail("ember.dot(ember.ones(0, dtype=ember.bool), ember.ones(0, dtype=ember.bool)) returns False; "
                       "torch raises NotImplementedError (\"dot\" not implemented for 'Bool')", ("bool",),
                       sample="contiguous0,")


def product(name, *samples, dtypes=NUMERIC, **kw):
    return OpInfo(name, fixed(*samples), dtypes=dtypes, grad=True, tol=MM_TOL, **kw)


PRODUCTS = [
    product("vdot", Sample(T((4,)), T((4,), seed=1)), Sample(T((4,), "offset"), T((4,), "expanded", seed=1)),
            Sample(T((0,)), T((0,))), Sample(x34(), x34(), raises=True), xfails=[EMPTY_BOOL_DOT]),
    product("addr", Sample(x34(), T((3,)), T((4,), seed=1)), Sample(T((4,)), T((3,), "offset"), T((4,)), beta=2, alpha=3),
            Sample(x34("transposed"), T((3,)), T((4,), seed=2), beta=0), Sample(T(()), T((3,)), T((4,))),
            Sample(x34(), x34(), T((4,)), raises=True), dtypes=DTYPES),
    product("addbmm", Sample(x34(), T((2, 3, 5)), T((2, 5, 4), seed=1)),
            Sample(T((4,)), T((2, 3, 5), "transposed"), T((2, 5, 4)), beta=2, alpha=3),
            Sample(x34(), T((0, 3, 5)), T((0, 5, 4))), Sample(x34(), T((2, 3, 5)), T((2, 4, 4)), raises=True)),
]


def trapezoid_samples(dtype):
    yield from (Sample(x34()), Sample(x34(), T((4,), seed=1)), Sample(x34("transposed"), dx=0.5, dim=0),
                Sample(x34(), x34(seed=2), dim=1), Sample(T((0, 4))), Sample(T(()), raises=True),
                Sample(x34(), T((3,)), raises=True))


NUMERICS = [
    OpInfo("isin", fixed(Sample(x34(), T((5,), seed=1)), Sample(x34("transposed"), T((2, 2), seed=2), invert=True),
                         Sample(T(()), x34()), Sample(T((0, 3)), T((4,))), Sample(x34(), 1)),
           dtypes=NUMERIC, method=None),
    unary("isreal", grad=False),
    unary("frexp", FLOATS, xfails=[FREXP_EMPTY_STRIDES]),
    OpInfo("unravel_index", fixed(Sample(T((5,), dtype="int64", low=-10, high=20), (3, 4)),
                                  Sample(T((), dtype="int64", low=0, high=11), (3, 4)),
                                  Sample(T((2, 3), dtype="int64", low=0, high=5), (2, 3)),
                                  Sample(T((3,), dtype="int64", low=0, high=3), ())), method=None),
    OpInfo("vander", fixed(Sample(T((4,))), Sample(T((3,), "offset"), N=2, increasing=True), Sample(T((3,)), N=0),
                           Sample(T((3,), low=0.5, high=2.0), N=5), Sample(T(()), raises=True),
                           Sample(T((3,)), N=-1, raises=True)), method=None),  # torch's backward raises (an in-place cumprod)
    OpInfo("cov", fixed(Sample(x34()), Sample(T((4,))), Sample(x34("transposed"), correction=0),
                        Sample(x34(), fweights=T((4,), dtype="int64", low=0.5, high=3)),
                        Sample(x34(), correction=2, aweights=T((4,), dtype="float64", low=0.1, high=2)),
                        Sample(T((2, 3, 4)), raises=True)), dtypes=NUMERIC, grad=True, tol=MM_TOL),
    OpInfo("corrcoef", fixed(Sample(x34()), Sample(T((4,))), Sample(x34("transposed"))), dtypes=NUMERIC, grad=True,
           tol=MM_TOL),
    *[OpInfo(n, trapezoid_samples, dtypes=NUMERIC, method=None, grad=True, tol=MM_TOL)
      for n in ("trapezoid", "trapz", "cumulative_trapezoid")],
    binary("rsub", NUMERIC, scalars=(3, 2.5)),
]

SHAPES = [
    OpInfo("select_scatter", fixed(Sample(x34(), T((4,), seed=1), 0, 1), Sample(x34("transposed"), T((3,), seed=1), 1, -1),
                                   Sample(x34(), T((3,)), 0, 5, raises=True), Sample(x34(), T((3,)), 0, 1, raises=True)),
           grad=True),
    OpInfo("slice_scatter", fixed(Sample(x34(), T((3, 2), seed=1), 1, 1, 3),
                                  Sample(x34("offset"), T((3, 2), seed=1), dim=1, step=2),
                                  Sample(x34(), T((1, 4), seed=1), start=-1), Sample(x34(), T((3, 3)), 1, 1, 3, raises=True)),
           grad=True),
    OpInfo("diagonal_scatter", fixed(Sample(x34(), T((3,), seed=1)), Sample(x34("transposed"), T((3,), seed=1), 1),
                                     Sample(T((2, 3, 4)), T((2, 3), seed=1), 0, 1, 2), Sample(x34(), T((2,)), raises=True)),
           grad=True),
    OpInfo("sum_to_size", fixed(Sample(x34(), 4), Sample(x34(), 1, 4), Sample(x34("transposed"), (3, 1)),
                                Sample(x34(), 3, 4), Sample(x34(), 2, raises=True)),
           torch_fn=None, grad=True, check_strides=False),
    OpInfo("split_with_sizes", fixed(Sample(x34(), [1, 3], 1), Sample(x34("transposed"), [2, 1]),
                                     Sample(x34(), [1, 1], raises=True)), grad=True),
]

ENTRIES = SPECIAL_FNS + ALIASES + BINARY + OTHERS + PRODUCTS + NUMERICS + SHAPES

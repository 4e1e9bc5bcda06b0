"""CUDA elementwise kernels (binary ops, unary ops, copy with dtype conversion, where) against Ember's CPU kernels:
each op on random inputs of every dtype, in every layout (contiguous, transposed, expanded, sliced with an offset,
empty, 0-dim, a Python number, a CPU 0-dim tensor beside CUDA ones), compared in dtype, shape, strides and values:
exactly, or within a few ulps for the transcendental functions (CUDA's device math is not glibc's)."""
import math
import operator

import numpy as np
import pytest
import torch

import ember
from conftest import DTYPE_NAMES, to_torch

pytestmark = pytest.mark.cuda

FLOATS = ("float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2")
# (rtol, atol) for results of transcendental functions: a few ulps of the dtype.
ULPS = {"float16": (1e-3, 1e-5), "bfloat16": (8e-3, 1e-5), "float32": (1e-6, 1e-6), "float64": (1e-12, 1e-14)}


def values(shape, dtype, seed, low=-3.0, high=3.0, nonzero=False):
    a = np.random.default_rng(seed).uniform(low, high, shape)
    if dtype == "bool":
        return a > 0
    if dtype not in FLOATS:
        a = np.array(np.round(np.abs(a) if dtype == "uint8" else a))  # np.array: 0-dim stays an array
    if nonzero:
        a[a == 0] = 2
    return a


def make(arr, dtype, layout="contiguous", device="cpu"):
    """An ember tensor of `arr`'s values (logical shape arr.shape) in `layout`, built on `device`."""
    def base(a):
        t = ember.from_numpy(np.array(a, dtype=np.float64, order="C")).to(getattr(ember, dtype))
        return t.cuda() if device == "cuda" else t
    if arr.ndim == 0 or layout == "contiguous":
        return base(arr)
    if layout == "transposed":
        return base(np.swapaxes(arr, 0, -1)).transpose(0, -1)
    if layout == "expanded":
        return base(arr[:1]).expand(*arr.shape)
    assert layout == "offset"  # storage offset 1, stride 2 along the last dim
    big = np.zeros(arr.shape[:-1] + (2 * arr.shape[-1] + 1,))
    big[..., 1::2] = arr
    return base(big)[..., 1::2]


def check(got, want, approx=False):
    """CUDA result `got` equals CPU result `want`: dtype, shape, strides and values (within a few ulps of the
    result's dtype when `approx`)."""
    assert got.device.type == "cuda", got.device
    assert got.dtype == want.dtype
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride(), (got.stride(), want.stride())
    g, w = to_torch(got.cpu()), to_torch(want)
    tol = approx if isinstance(approx, tuple) else ULPS.get(str(w.dtype).replace("torch.", "")) if approx else None
    if g.dtype.is_floating_point:
        g, w = g.double(), w.double()
        if tol is None:  # bit-exact but NaN == NaN
            nan = w.isnan()
            assert torch.equal(g.isnan(), nan) and torch.equal(g[~nan], w[~nan]), (g, w)
            assert torch.equal(g[~nan].signbit(), w[~nan].signbit()), (g, w)  # signed zeros
        else:
            torch.testing.assert_close(g, w, rtol=tol[0], atol=tol[1], equal_nan=True)
    else:
        assert torch.equal(g, w), (g, w)


def same_outcome(fn, cpu_args, cuda_args, approx=False):
    """fn on the CUDA arguments matches fn on the CPU ones: the same result, or the same exception type."""
    try:
        want = fn(*cpu_args)
    except Exception as e:  # noqa: BLE001 - compared with what CUDA raises
        with pytest.raises(type(e)):
            fn(*cuda_args)
        return
    check(fn(*cuda_args), want, approx)


def cuda(args):
    return [a.cuda() if isinstance(a, ember.Tensor) else a for a in args]


# --- binary ops ---

ROW_OPS = ["add", "sub", "mul", "pow", "maximum", "minimum", "fmax", "fmin", "remainder", "floor_divide", "fmod", "div",
           "atan2", "copysign", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
           "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"]
BINARY = {name: (lambda name: lambda a, b: getattr(ember, name)(a, b))(name) for name in ROW_OPS}
BINARY.update({
    "div_trunc": lambda a, b: ember.div(a, b, rounding_mode="trunc"),
    "div_floor": lambda a, b: ember.div(a, b, rounding_mode="floor"),
    "add_alpha": lambda a, b: ember.add(a, b, alpha=2),
    "sub_alpha": lambda a, b: ember.sub(a, b, alpha=3),
    "add_alpha_float": lambda a, b: ember.add(a, b, alpha=0.3),
})
# The Python operator of an op, for a number on the left (x.__rop__).
REFLECTED = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
             "pow": operator.pow, "remainder": operator.mod, "floor_divide": operator.floordiv,
             "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
             "bitwise_left_shift": operator.lshift, "bitwise_right_shift": operator.rshift}
# Compared within a few ulps: transcendental functions, and a + alpha * b, which nvcc may fuse into one rounding.
APPROX_BINARY = {"pow", "atan2", "sub_alpha", "add_alpha_float"}
# torch's CPU truncates a float16/bfloat16 quotient computed in float; its CUDA kernel (and Ember's) rounds the
# quotient to the dtype first, which can cross an integer: the results may differ by one, or by one ulp of the dtype
# where that is more.
ROUNDS_QUOTIENT = {"div_trunc"}


def tolerance(name, dtype):
    if name in ROUNDS_QUOTIENT and dtype in ("float16", "bfloat16"):
        return (2.0 ** -7 if dtype == "bfloat16" else 2.0 ** -10, 1.0)
    return name in APPROX_BINARY
DIVIDING = {"remainder", "floor_divide", "fmod", "div_trunc", "div_floor"}
# (shape of a, layout of a, shape of b, layout of b)
BINARY_LAYOUTS = [((3, 5), "contiguous", (3, 5), "contiguous"), ((4, 3), "transposed", (4, 3), "contiguous"),
                  ((4, 6), "contiguous", (4, 6), "transposed"), ((3, 4), "expanded", (3, 4), "offset"),
                  ((2, 3, 4), "offset", (3, 1), "contiguous"), ((5, 1), "contiguous", (1, 6), "contiguous"),
                  ((0, 3), "contiguous", (0, 3), "contiguous"), ((0, 3), "contiguous", (3,), "contiguous"),
                  ((), "contiguous", (), "contiguous"), ((3, 4), "contiguous", (), "contiguous"),
                  ((), "contiguous", (2, 3), "transposed")]
NUMBERS = [3, -2, 2.5, True]


def binary_values(name, shape, dtype, seed, rhs):
    if name.startswith("bitwise_") and name.endswith("shift") and rhs:
        return values(shape, dtype, seed, 0, 9)
    if name == "pow" and dtype not in FLOATS:
        return values(shape, dtype, seed, 0, 4) if rhs else values(shape, dtype, seed, -4, 4)
    return values(shape, dtype, seed, nonzero=rhs and name in DIVIDING | {"div"})


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary(name, dtype):
    fn = BINARY[name]
    approx = tolerance(name, dtype)
    for i, (sa, la, sb, lb) in enumerate(BINARY_LAYOUTS):
        va, vb = binary_values(name, sa, dtype, i, False), binary_values(name, sb, dtype, 100 + i, True)
        cpu_args = [make(va, dtype, la), make(vb, dtype, lb)]
        cuda_args = [make(va, dtype, la, "cuda"), make(vb, dtype, lb, "cuda")]
        same_outcome(fn, cpu_args, cuda_args, approx)
    a = values((3, 4), dtype, 7)
    for number in NUMBERS:  # a wrapped number: a CPU 0-dim tensor beside a CUDA one
        same_outcome(lambda x: fn(x, number), [make(a, dtype, "transposed")], [make(a, dtype, "transposed", "cuda")],
                     approx)
        same_outcome(lambda x: fn(x, number), [make(a, dtype, "offset")], [make(a, dtype, "offset", "cuda")], approx)
        if name in REFLECTED:
            op = REFLECTED[name]
            same_outcome(lambda x: op(number, x), [make(a, dtype)], [make(a, dtype, device="cuda")], approx)
    # a CPU 0-dim tensor (not a wrapped number) beside a CUDA tensor, on either side
    s = make(binary_values(name, (), dtype, 3, True), dtype)
    same_outcome(lambda x, y: fn(x, y), [make(a, dtype), s], [make(a, dtype, device="cuda"), s], approx)
    same_outcome(lambda x, y: fn(x, y), [s, make(a, dtype)], [s, make(a, dtype, device="cuda")], approx)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "maximum", "eq", "lt", "atan2", "remainder"])
@pytest.mark.parametrize("pair", [("int32", "float32"), ("uint8", "int8"), ("float16", "bfloat16"), ("bool", "int64"),
                                  ("float64", "float16"), ("int16", "bfloat16")])
def test_binary_promotion(name, pair):
    fn = BINARY[name]
    va, vb = values((4, 5), pair[0], 1), values((5,), pair[1], 2, nonzero=True)
    same_outcome(fn, [make(va, pair[0]), make(vb, pair[1])], [make(va, pair[0], device="cuda"),
                                                              make(vb, pair[1], device="cuda")],
                 name in APPROX_BINARY)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["mul", "div", "floor_divide", "div_trunc", "div_floor"])
def test_binary_wide_scalar(name, dtype):
    # a one-element b of a float16/bfloat16 mul or division is read at float precision, as torch's CUDA kernels
    a = values((6, 7), dtype, 4, -100, 100)
    for b in [0.1, 3.3, -7.7, 1 / 3]:
        same_outcome(lambda x: BINARY[name](x, b), [make(a, dtype, "transposed")],
                     [make(a, dtype, "transposed", "cuda")], tolerance(name, dtype))
    # A 0-dim float32 tensor keeps the float16/bfloat16 dtype; on the CPU it is read wide, on CUDA (as torch's
    # kernels, which read device operands in the element type) rounded to the dtype first.
    one = make(np.array(0.3), "float32")
    same_outcome(lambda x, y: BINARY[name](x, y), [make(a, dtype), one.to(getattr(ember, dtype))],
                 [make(a, dtype, device="cuda"), one.cuda()], tolerance(name, dtype))


@pytest.mark.parametrize("dtype", ["int64", "float32", "float16", "bfloat16", "float64", "uint8", "bool"])
@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_", "pow_", "remainder_", "bitwise_and_", "lt_"])
def test_binary_in_place(name, dtype):
    va, vb = values((4, 6), dtype, 5, 0.5, 3), values((4, 6), dtype, 6, 0.5, 3, nonzero=True)
    for lx, other in [("contiguous", "tensor"), ("transposed", "tensor"), ("offset", "row"), ("contiguous", 2)]:
        def run(device):
            x = make(va, dtype, lx, device)
            y = make(vb, dtype, device=device) if other == "tensor" else make(vb[0], dtype, device=device) \
                if other == "row" else other
            r = getattr(x, name)(y)
            assert r is x
            return x
        try:
            want = run("cpu")
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                run("cuda")
            continue
        check(run("cuda"), want, name == "pow_")


def test_binary_out_and_host_only_inputs():
    x, y = make(values((3, 4), "float32", 1), "float32"), make(values((3, 4), "float32", 2), "float32")
    out = ember.empty(3, 4, dtype=ember.float64).cuda()
    r = ember.add(x.cuda(), y.cuda(), out=out)
    assert r is out
    check(out, ember.add(x, y, out=ember.empty(3, 4, dtype=ember.float64)))
    # both inputs CPU 0-dim tensors, the output on the GPU: every operand is bound into the kernel
    a, b = ember.tensor(2.5), ember.tensor(-4.0)
    out = ember.empty((), dtype=ember.float32).cuda()
    ember.mul(a, b, out=out)
    check(out, ember.mul(a, b))


def test_pow_scalar():
    for dtype in ["float32", "float64", "bfloat16", "float16", "int32"]:
        a = values((5, 6), dtype, 9, 0.1, 4)
        for e in [0.5, -0.5, -1, 2, 3, -2, 1, 0, 2.5, 4]:
            if dtype == "int32" and e < 0:
                continue
            # exact: the exponents computed without pow (pow_scalar), the identities, integer powers
            exact = e in (1, 0) or (dtype == "int32" and e in (2, 3, 4)) or \
                (dtype != "float16" and e in (0.5, -0.5, -1, 2, 3, -2))
            same_outcome(lambda x: x ** e, [make(a, dtype, "transposed")], [make(a, dtype, "transposed", "cuda")],
                         not exact)


def test_large_contiguous_add():
    # 16M float32 elements: the vectorised pass; then misaligned views (1 element in): its unvectorised variant
    n = 1 << 24
    x = ember.from_numpy(np.random.default_rng(0).standard_normal(n, dtype=np.float32))
    y = ember.from_numpy(np.random.default_rng(1).standard_normal(n, dtype=np.float32))
    xc, yc = x.cuda(), y.cuda()
    check(xc + yc, x + y)
    check(xc[1:] + yc[1:], x[1:] + y[1:])
    check(xc[1:] * yc[:-1], x[1:] * y[:-1])
    xc.add_(yc)
    check(xc, x.add_(y))


def test_strided_64bit_offsets():
    # a stride-2 view reaching past 2**30 bytes: the grid-stride pass in 64-bit offsets
    n = (1 << 28) + (1 << 20)
    x = ember.from_numpy(np.arange(n, dtype=np.float32) % 1000)
    xc = x.cuda()
    check(xc[::2] + 1, x[::2] + 1)
    check(ember.neg(xc[1::2]), ember.neg(x[1::2]))
    check(xc[::2].to(ember.float16), x[::2].to(ember.float16))


# --- unary ops ---

def unary_rows():
    rows = []
    for section in ["exp_log", "trig", "activation", "sign_rounding"]:
        path = __import__("pathlib").Path(__file__).parents[2] / "include" / "ember" / "unary" / f"{section}.def"
        for line in path.read_text().splitlines():
            if line.startswith("EMBER_UNARY_OP("):
                rows.append(line[len("EMBER_UNARY_OP("):].split(",")[0])
    return rows


UNARY_NAMES = unary_rows()
UNARY = {name: (lambda name: lambda x: getattr(ember, name)(x))(name) for name in UNARY_NAMES}
UNARY["gelu_erf"] = lambda x: ember.gelu(x)
UNARY["gelu_tanh"] = lambda x: ember.gelu(x, approximate="tanh")
EXACT_UNARY = {"abs", "neg", "relu", "floor", "ceil", "trunc", "round", "sign", "square", "frac", "bitwise_not",
               "reciprocal", "sqrt", "rsqrt"}
UNARY_LAYOUTS = [((3, 5), "contiguous"), ((4, 3), "transposed"), ((3, 4), "expanded"), ((2, 3, 4), "offset"),
                 ((0, 4), "contiguous"), ((), "contiguous"), ((1000,), "contiguous"), ((33, 17), "transposed")]
SPECIAL = [math.inf, -math.inf, math.nan, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-30, 10.0, -10.0, 88.0, 1e6]


def test_unary_rows_listed():
    assert len(UNARY_NAMES) >= 30 and "sin" in UNARY_NAMES and "bitwise_not" in UNARY_NAMES


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("name", UNARY_NAMES)
def test_unary(name, dtype):
    fn = UNARY[name]
    approx = name not in EXACT_UNARY
    for i, (shape, layout) in enumerate(UNARY_LAYOUTS):
        v = values(shape, dtype, i)
        same_outcome(fn, [make(v, dtype, layout)], [make(v, dtype, layout, "cuda")], approx)
    if dtype in FLOATS:
        v = np.array(SPECIAL)
        same_outcome(fn, [make(v, dtype)], [make(v, dtype, device="cuda")], approx)
    v = values((4, 5), dtype, 11)
    if hasattr(ember.Tensor, name + "_"):  # in place, on a view
        same_outcome(lambda x: getattr(x, name + "_")(), [make(v, dtype, "offset")], [make(v, dtype, "offset", "cuda")],
                     approx)


# --- copy ---

COPY_VALUES = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 127.0, 128.0, 255.0, 256.0, -129.0, 300.7, -300.7, 65504.0,
                        1e5, -1e9, 3e38, math.inf, -math.inf, math.nan, 1e-3, 0.1, 448.0, 57344.0])


@pytest.mark.parametrize("src", DTYPE_NAMES)
@pytest.mark.parametrize("dst", DTYPE_NAMES)
def test_copy(dst, src):
    if src in FLOATS:
        base = np.concatenate([COPY_VALUES, values((24,), src, 1, -50, 50)])
    else:
        base = values((48,), src, 1, -200, 200)
    cpu_src = make(base, src)
    arr = to_torch(cpu_src).double().numpy()  # the values src holds
    # .to(): a new tensor in src's layout
    for shape, layout in [((48,), "contiguous"), ((6, 8), "transposed"), ((6, 8), "expanded"), ((3, 2, 8), "offset"),
                          ((0, 5), "contiguous"), ((), "contiguous")]:
        v = arr[:math.prod(shape)].reshape(shape) if shape else arr[3]
        s_cpu, s_cuda = make(v, src, layout), make(v, src, layout, "cuda")
        check(s_cuda.to(getattr(ember, dst)), s_cpu.to(getattr(ember, dst)))
    # copy_ into another layout: a transposed source into a contiguous target, and the reverse
    v = arr.reshape(6, 8)
    for ls, ld in [("transposed", "contiguous"), ("contiguous", "transposed"), ("offset", "offset"),
                   ("expanded", "contiguous")]:
        d_cpu, d_cuda = make(np.zeros((6, 8)), dst, ld), make(np.zeros((6, 8)), dst, ld, "cuda")
        d_cpu.copy_(make(v, src, ls))
        d_cuda.copy_(make(v, src, ls, "cuda"))
        check(d_cuda, d_cpu)


def test_copy_same_dtype_paths():
    v = values((64, 33), "float32", 2)
    x_cpu, x = make(v, "float32"), make(v, "float32", device="cuda")
    check(x.clone(), x_cpu.clone())                  # one dense block: a device-to-device memcpy
    check(x.t().contiguous(), x_cpu.t().contiguous())  # a transpose: the strided kernel
    check(x[:, 1:].clone(), x_cpu[:, 1:].clone())
    y = make(np.zeros((33, 64)), "float32", device="cuda")
    y.copy_(x.t())
    check(y, x_cpu.t().contiguous())


# --- where ---

@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_where(dtype):
    for i, (sc, lc, sa, la, sb, lb) in enumerate([
            ((3, 4), "contiguous", (3, 4), "contiguous", (3, 4), "contiguous"),
            ((4, 3), "transposed", (4, 3), "offset", (4, 3), "expanded"),
            ((3, 1), "contiguous", (1, 4), "contiguous", (4,), "offset"),
            ((0, 2), "contiguous", (0, 2), "contiguous", (2,), "contiguous"),
            ((), "contiguous", (), "contiguous", (), "contiguous"),
            ((2, 3), "contiguous", (), "contiguous", (2, 3), "transposed")]):
        vc, va, vb = values(sc, "bool", i), values(sa, dtype, 10 + i), values(sb, dtype, 20 + i)
        same_outcome(ember.where, [make(vc, "bool", lc), make(va, dtype, la), make(vb, dtype, lb)],
                     [make(vc, "bool", lc, "cuda"), make(va, dtype, la, "cuda"), make(vb, dtype, lb, "cuda")])
    c, a = values((3, 5), "bool", 1), values((3, 5), dtype, 2)
    for number in [0, 2.5, True]:  # a wrapped number as b (bound into the kernel)
        same_outcome(lambda x, y: ember.where(x, y, number), [make(c, "bool"), make(a, dtype)],
                     [make(c, "bool", device="cuda"), make(a, dtype, device="cuda")])

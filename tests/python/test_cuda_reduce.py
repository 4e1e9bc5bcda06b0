"""CUDA reductions, arg-extremum and softmax against Ember's CPU results: every dtype the ops take, full and
per-dim reductions (keepdim), contiguous / transposed / offset / strided / expanded inputs, empty and 0-dim
tensors, long inputs (the sliced two-pass paths), row lengths around the warp and block sizes, NaN and inf."""
import numpy as np
import pytest
import torch

import ember
from conftest import DTYPE_NAMES, FLOAT_NAMES, outcome, to_torch

pytestmark = pytest.mark.cuda

INT_NAMES = ["uint8", "int8", "int16", "int32", "int64"]
# float sums accumulate in double on both devices; the results may differ in the last bits of the output dtype
EPS = {"float16": 1e-3, "bfloat16": 8e-3, "float32": 1.2e-7, "float64": 1e-15, "float8_e4m3fn": 0.125,
       "float8_e5m2": 0.25}


def make(shape, dtype, seed=0, low=-9, high=10, shift=0.0, scale=1.0):
    """An Ember CPU tensor of `dtype`: normal values (times scale, plus shift) for floats, integers in [low, high)
    (ties likely), bools."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        arr = rng.random(shape) > 0.5
    elif dtype in INT_NAMES:
        arr = rng.integers(0 if dtype == "uint8" else low, high, shape)
    else:
        arr = (shift + scale * rng.standard_normal(shape)).astype(np.float32)
    return ember.from_numpy(np.ascontiguousarray(arr)).to(getattr(ember, dtype))


# Views taken alike of the CPU tensor and of its CUDA copy (3-D inputs).
LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.transpose(0, 2),
    "offset": lambda t: t[1:, :, 1:],
    "strided": lambda t: t[::2, :, ::2],
    "expanded": lambda t: t[:, :1, :].expand(t.shape[0], 5, t.shape[2]),
}


def values(r):
    return tuple(r) if isinstance(r, tuple) else (r,)


def check(fn, x, rtol=0.0, atol=0.0):
    """fn on the CUDA copy of CPU tensor x equals fn on x (or raises the same exception type)."""
    xc = x.cuda()
    cpu, cpu_err = outcome(lambda: fn(x))
    gpu, gpu_err = outcome(lambda: fn(xc))
    if cpu_err is not None or gpu_err is not None:
        assert type(gpu_err) is type(cpu_err), (cpu_err, gpu_err)
        return
    for c, g in zip(values(cpu), values(gpu), strict=True):
        assert g.device.type == "cuda"
        assert str(g.dtype) == str(c.dtype) and tuple(g.shape) == tuple(c.shape)
        tc, tg = to_torch(c), to_torch(g)
        if c.is_floating_point():
            torch.testing.assert_close(tg.double(), tc.double(), rtol=rtol, atol=atol, equal_nan=True)
        else:
            assert torch.equal(tg, tc), (tg, tc)


def sum_tolerance(dtype, count):
    # Both round a sum to the output dtype (rtol); the CPU sums blocks of 128 in float (in double for float64),
    # an error growing as sqrt(count) (atol; a dropped or doubled N(0, 1) element still lies far outside).
    if dtype not in EPS:
        return dict(rtol=0.0, atol=0.0)
    return dict(rtol=2 * EPS[dtype], atol=32 * EPS["float64" if dtype == "float64" else "float32"] * count ** 0.5)


DIMS = [None, 0, -1, 1, (0, 2), (0, 1, 2), ()]
OPS = {
    "sum": lambda t, d, k: t.sum() if d is None else t.sum(d, keepdim=k),
    "prod": lambda t, d, k: t.prod() if d is None or isinstance(d, tuple) else t.prod(d, keepdim=k),
    "amax": lambda t, d, k: t.amax() if d is None else t.amax(d, keepdim=k),
    "amin": lambda t, d, k: t.amin() if d is None else t.amin(d, keepdim=k),
    "all": lambda t, d, k: t.all() if d is None else t.all(d, keepdim=k),
    "any": lambda t, d, k: t.any() if d is None else t.any(d, keepdim=k),
    "mean": lambda t, d, k: t.mean() if d is None else t.mean(d, keepdim=k),
}


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_reduce_ops(op, dtype):
    # products of factors near 1 (or small integers): neither overflows nor underflows in any order
    x = make((6, 7, 5), dtype, shift=1.0, scale=0.05, low=-2, high=3) if op == "prod" else make((6, 7, 5), dtype)
    for layout, view in LAYOUTS.items():
        for d in DIMS:
            for keepdim in (False, True):
                tol = sum_tolerance(dtype, 6 * 7 * 5)
                if op == "prod":
                    tol = dict(rtol=EPS.get(dtype, 0.0) * 210, atol=EPS.get(dtype, 0.0) * 210)
                check(lambda t: OPS[op](view(t), d, keepdim), x, **tol)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_max_min_dim_and_arg(dtype):
    x = make((6, 7, 5), dtype, low=-2, high=3)  # many ties: the first index wins
    for view in LAYOUTS.values():
        for d in (0, 1, -1):
            for keepdim in (False, True):
                check(lambda t: view(t).max(d, keepdim=keepdim), x)
                check(lambda t: view(t).min(d, keepdim=keepdim), x)
                check(lambda t: view(t).argmax(d, keepdim=keepdim), x)
                check(lambda t: view(t).argmin(d, keepdim=keepdim), x)
        check(lambda t: view(t).argmax(), x)
        check(lambda t: view(t).argmin(keepdim=True), x)
        check(lambda t: view(t).max(), x)
        check(lambda t: view(t).min(), x)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_var_std(dtype):
    x = make((6, 7, 5), dtype)
    tol = dict(rtol=4 * EPS[dtype], atol=4 * EPS[dtype])
    for view in LAYOUTS.values():
        for d in (None, 0, -1, (0, 2)):
            for correction in (0, 1):
                check(lambda t: ember.var(view(t), d, correction=correction), x, **tol)
                check(lambda t: ember.std(view(t), d, correction=correction, keepdim=True), x, **tol)


@pytest.mark.parametrize("n", [1, 5, 15, 16, 31, 32, 33, 1000, 1024, 1025, 4096, 5000, 100_003])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "uint8", "bool"])
def test_row_lengths(n, dtype):
    rows = max(1, 20_000 // n)
    x = make((rows, n), dtype, seed=n)
    tol = sum_tolerance(dtype, n)
    check(lambda t: t.sum(-1), x, **tol)
    check(lambda t: t.sum(0), x, **tol)
    check(lambda t: t.sum(), x, **sum_tolerance(dtype, rows * n))
    check(lambda t: t.amax(-1), x)
    check(lambda t: t.amin(0), x)
    check(lambda t: t[:, 1:].sum(-1), x, **tol)  # rows not 16-byte aligned
    check(lambda t: t.any(-1), x)
    check(lambda t: t.all(0), x)
    if dtype != "bool":
        check(lambda t: t.max(-1), x)
        check(lambda t: t.argmin(-1), x)
        check(lambda t: t.argmax(0), x)
    if dtype in FLOAT_NAMES:
        smtol = dict(rtol=4 * EPS[dtype], atol=4 * EPS[dtype])
        check(lambda t: t.softmax(-1), x, **smtol)
        check(lambda t: t.log_softmax(-1), x, **dict(rtol=8 * EPS[dtype], atol=8 * EPS[dtype]))
        check(lambda t: t.softmax(0), x, **smtol)
        check(lambda t: t[:, 1:].log_softmax(-1), x, **dict(rtol=8 * EPS[dtype], atol=8 * EPS[dtype]))


def test_large():
    x = make((4096, 4096), "float32", seed=1)
    check(lambda t: t.sum(), x, rtol=1e-6, atol=1e-2)
    check(lambda t: t.sum(0), x, rtol=1e-6, atol=1e-4)
    check(lambda t: t.sum(1), x, rtol=1e-6, atol=1e-4)
    check(lambda t: t.t().sum(1), x, rtol=1e-6, atol=1e-4)
    check(lambda t: t.mean(), x, rtol=1e-6, atol=1e-7)
    check(lambda t: t.amax(), x)
    check(lambda t: t.amin(1), x)
    check(lambda t: t.argmax(), x)
    d = x.to(ember.float64)
    check(lambda t: t.sum(), d, rtol=1e-12, atol=1e-9)
    check(lambda t: t.sum(0), d, rtol=1e-12, atol=1e-12)
    ones = ember.ones(2**24)
    assert ones.cuda().sum().item() == 16777216.0
    assert ones.cuda().to(ember.bool).all().item() and ones.cuda().to(ember.bool)[5:].any().item()
    i = make((1 << 24,), "int32", seed=2, low=-1000, high=1000)
    check(lambda t: t.sum(), i)
    check(lambda t: t.prod(), make((1 << 20,), "int64", seed=3, low=1, high=4))  # wraps alike in any order


@pytest.mark.parametrize("dtype", ["float64", "int64", "float32"])
def test_sliced_and_strided_reductions(dtype):
    # Reduced dims that do not merge (strided loads), slices folded in a second pass, kept dims that do not merge.
    tol = dict(rtol=1e-12, atol=1e-10) if dtype == "float64" else sum_tolerance(dtype, 1 << 20)
    check(lambda t: t.sum((0, 2)), make((64, 3, 300), dtype), **tol)
    check(lambda t: t.sum((0, 2)), make((512, 3, 300), dtype), **tol)
    check(lambda t: t.sum((0, 2), keepdim=True), make((300, 4, 200, 5), dtype), **tol)
    check(lambda t: t.amax((0, 2)), make((300, 4, 200, 5), dtype))
    check(lambda t: t.transpose(1, 2).sum(0), make((4096, 3, 7), dtype), **tol)
    check(lambda t: t.transpose(1, 2).amin(0), make((4096, 3, 7), dtype))
    check(lambda t: t.sum(1), make((3, 1 << 20), dtype), **tol)
    check(lambda t: t.t().sum(0), make((1 << 20, 3), dtype), **tol)
    check(lambda t: t[:, ::2].sum(-1), make((2, 1 << 20), dtype), **tol)


def test_arg_extremum_long_rows_first_index():
    # One long row is split into slices folded in a second pass: the first of equal extremes must win across slices.
    n = 1 << 24
    arr = np.zeros(n, dtype=np.float32)
    arr[[5_000_000, 9_000_000, 16_000_000]] = 7.0
    arr[[70, 12_000_000]] = -7.0
    x = ember.from_numpy(arr)
    for fn in (lambda t: t.argmax(), lambda t: t.argmin(), lambda t: t.max(0), lambda t: t.min(0),
               lambda t: t.view(2, -1).argmax(1)):
        check(fn, x)
    assert x.cuda().argmax().item() == 5_000_000 and x.cuda().argmin().item() == 70
    arr[[8_000_000, 3_000_000]] = np.nan
    x = ember.from_numpy(arr)
    assert x.cuda().argmax().item() == 3_000_000 and x.cuda().argmin().item() == 3_000_000
    check(lambda t: t.max(0), x)
    check(lambda t: t.amax(), x)
    check(lambda t: t.amin(), x)


def test_nan_inf():
    arr = np.random.default_rng(5).standard_normal((8, 40)).astype(np.float32)
    arr[1, 3] = np.nan
    arr[2, 39] = np.inf
    arr[3, :] = -np.inf
    arr[4, 0] = np.nan
    arr[5, 7] = -np.inf
    arr[6, [2, 9]] = np.inf
    for dtype in FLOAT_NAMES:
        x = ember.from_numpy(arr).to(getattr(ember, dtype))
        for d in (None, 0, 1):
            for op in ("sum", "amax", "amin", "mean"):
                check(lambda t: OPS[op](t, d, False), x, **sum_tolerance(dtype, 40))
        check(lambda t: t.max(1), x)
        check(lambda t: t.argmin(1), x)
        check(lambda t: t.argmax(0), x)
        if dtype in ("bfloat16", "float32", "float64"):  # no underflow to 0 (0 * inf) in any order
            check(lambda t: t.prod(1), x, rtol=EPS[dtype] * 80, atol=0)
        check(lambda t: t.all(1), x)
        check(lambda t: t.any(0), x)
        if dtype in ("float16", "bfloat16", "float32", "float64"):
            check(lambda t: t.softmax(1), x, rtol=4 * EPS[dtype], atol=4 * EPS[dtype])
            check(lambda t: t.log_softmax(1), x, rtol=8 * EPS[dtype], atol=8 * EPS[dtype])


def test_empty_and_0dim():
    for dtype in ("float32", "int64", "bool"):
        e = make((0, 5), dtype)
        for fn in (lambda t: t.sum(), lambda t: t.sum(0), lambda t: t.sum(1), lambda t: t.prod(0), lambda t: t.all(),
                   lambda t: t.any(1), lambda t: t.amax(1), lambda t: t.amax(0), lambda t: t.max(1),
                   lambda t: t.mean(0) if t.is_floating_point() else t.sum(0)):
            check(fn, e)
        s = make((), dtype)
        for fn in (lambda t: t.sum(), lambda t: t.sum(0), lambda t: t.prod(), lambda t: t.amax(), lambda t: t.all(),
                   lambda t: t.any(0, keepdim=True), lambda t: t.max(0), lambda t: t.argmin(), lambda t: t.argmax(0)):
            check(fn, s)
    f = make((), "float32")
    check(lambda t: t.softmax(0), f, rtol=1e-6, atol=1e-7)
    check(lambda t: t.log_softmax(0), f, rtol=1e-6, atol=1e-7)
    check(lambda t: t.softmax(1), make((0, 3), "float32"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_softmax(dtype):
    x = make((4, 6, 1000), dtype, seed=7) * 3
    tol = dict(rtol=4 * EPS[dtype], atol=4 * EPS[dtype])
    for d in (-1, 0, 1):
        check(lambda t: t.softmax(d), x, **tol)
        check(lambda t: t.log_softmax(d), x, **dict(rtol=8 * EPS[dtype], atol=8 * EPS[dtype]))
        check(lambda t: t.transpose(0, 2).softmax(d), x, **tol)
    check(lambda t: t.softmax(-1, dtype=ember.float64), x, rtol=1e-12, atol=1e-15)
    check(lambda t: t.log_softmax(-1, dtype=ember.float32), x, rtol=1e-6, atol=1e-6)
    big = make((4096, 1000), dtype, seed=8)
    check(lambda t: t.softmax(-1), big, **tol)
    check(lambda t: t.log_softmax(-1), big, **dict(rtol=8 * EPS[dtype], atol=8 * EPS[dtype]))
    rows = ember.from_numpy(np.random.default_rng(9).standard_normal((3, 70_000)).astype(np.float32)).to(
        getattr(ember, dtype))
    check(lambda t: t.softmax(-1), rows, **tol)
    check(lambda t: t.log_softmax(-1), rows, **dict(rtol=8 * EPS[dtype], atol=8 * EPS[dtype]))


def test_softmax_matches_torch():
    arr = np.random.default_rng(11).standard_normal((64, 1000)).astype(np.float32)
    got = ember.from_numpy(arr).cuda().softmax(-1).cpu().numpy()
    torch.testing.assert_close(torch.from_numpy(got), torch.from_numpy(arr).softmax(-1), rtol=1e-5, atol=1e-7)
    got = ember.from_numpy(arr).cuda().log_softmax(-1).cpu().numpy()
    torch.testing.assert_close(torch.from_numpy(got), torch.from_numpy(arr).log_softmax(-1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("n", [1, 3, 511, 8193, 1 << 20, (1 << 22) + 5])
def test_whole_tensor_one_pass(dtype, n):
    # the one-kernel path of a whole contiguous tensor (kernels::reduce_all): sizes around the block and grid
    # shares, an unaligned start (x[1:]), integral sums into int64, means divided before rounding, repeatable
    x = make((n + 1,), dtype, seed=n)
    for view in (lambda t: t[:n], lambda t: t[1:]):
        for name in ("sum", "amax", "amin", "mean"):
            check(lambda t: OPS[name](view(t), None, False), x, **sum_tolerance(dtype, n))
        check(lambda t: view(t).sum(dim=(0,), keepdim=True), x, **sum_tolerance(dtype, n))
    m = make((37, 29), dtype, seed=1)
    for name in ("sum", "amax", "amin", "mean"):  # dense in another dim order
        check(lambda t: OPS[name](t.t(), None, False), m, **sum_tolerance(dtype, m.numel()))
    if dtype in ("float32", "float64"):
        xc = x.cuda()
        assert ember.equal(xc.sum().cpu(), xc.sum().cpu())

"""CUDA order statistics, scans, searches, scatter, masked_select, tril/triu and svd against Ember's CPU results
(every dtype they take, ties, NaNs, rows of 1, 1000 and 100k elements, empty and non-contiguous inputs, negative
dims); and the ops that build data on the host (dropout, padding, interpolation, embedding, rrelu, init) on CUDA
tensors."""
import numpy as np
import pytest
import torch

import ember
from conftest import outcome, to_torch

pytestmark = pytest.mark.cuda

SORTABLE = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
LENGTHS = [1, 1000, 100_000]


def make(shape, dtype, seed=0, nan=True):
    """An Ember CPU tensor with many ties: integers in a small range; floats as halves in [-5, 5) with -0.0, inf and
    (when `nan`) NaNs mixed in."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        arr = rng.random(shape) > 0.5
    elif dtype in FLOATS:
        arr = rng.integers(-10, 10, shape).astype(np.float32) / 2
        flat = arr.reshape(-1)
        if flat.size >= 8:
            picks = rng.choice(flat.size, size=max(4, flat.size // 50), replace=False)
            specials = [-0.0, np.inf, -np.inf] + ([np.nan] if nan else [])
            flat[picks] = rng.choice(specials, size=picks.size)
    else:
        arr = rng.integers(0 if dtype == "uint8" else -9, 10, shape)
    return ember.from_numpy(np.ascontiguousarray(arr)).to(getattr(ember, dtype))


def same(g, c, rtol=0.0, atol=0.0):
    """CUDA result g equals CPU result c: dtype, shape and values (NaN equal to NaN)."""
    assert g.device.type == "cuda"
    assert str(g.dtype) == str(c.dtype) and tuple(g.shape) == tuple(c.shape), (g.dtype, c.dtype, g.shape, c.shape)
    tg, tc = to_torch(g), to_torch(c)
    if tc.dtype.is_floating_point:
        torch.testing.assert_close(tg.double(), tc.double(), rtol=rtol, atol=atol, equal_nan=True)
    else:
        assert torch.equal(tg, tc)


def check(fn, x, *args, **kw):
    """fn on CUDA copies of x (and of tensor args) equals fn on the CPU tensors, or both raise one exception type."""
    cuda_args = [a.cuda() if isinstance(a, ember.Tensor) else a for a in args]
    cpu, cpu_err = outcome(lambda: fn(x, *args))
    gpu, gpu_err = outcome(lambda: fn(x.cuda(), *cuda_args))
    if cpu_err is not None or gpu_err is not None:
        assert type(gpu_err) is type(cpu_err), (cpu_err, gpu_err)
        return None, None
    for c, g in zip(cpu if isinstance(cpu, tuple) else (cpu,), gpu if isinstance(gpu, tuple) else (gpu,), strict=True):
        same(g, c, **kw)
    return cpu, gpu


def gathers(x, dim, values, indices):
    """indices (on CUDA) pick values out of x along dim."""
    picked = ember.gather(x.cuda(), dim, indices)
    same(picked, values.cpu())


def rows(dtype, n, seed=0):
    """(x, dim) cases for a row length n: a 1-D row, a 2-D batch along -1, and a transposed view along 0."""
    yield make((n,), dtype, seed), 0
    if n <= 1000:
        yield make((3, n), dtype, seed), -1
        yield make((n, 4), dtype, seed).t().contiguous().t(), 0  # non-contiguous rows


# ---- sort, argsort, topk

@pytest.mark.parametrize("dtype", SORTABLE)
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_stable(dtype, n, descending):
    for x, dim in rows(dtype, n):
        check(lambda t: ember.sort(t, dim=dim, descending=descending, stable=True), x)


@pytest.mark.parametrize("dtype", ["int16", "float32", "bfloat16"])
@pytest.mark.parametrize("n", LENGTHS)
def test_sort_unstable_values(dtype, n):
    for x, dim in rows(dtype, n, seed=1):
        v, i = ember.sort(x.cuda(), dim=dim, descending=True)
        same(v, ember.sort(x, dim=dim, descending=True)[0])
        gathers(x, dim, v, i)
        same(ember.argsort(x.cuda(), dim=dim, stable=True), ember.argsort(x, dim=dim, stable=True))


def test_sort_edges():
    for shape in [(0,), (3, 0), (0, 4), (5, 1), ()]:
        x = make(shape, "float32")
        check(lambda t: ember.sort(t, dim=-1, stable=True), x)
        check(lambda t: ember.sort(t, dim=0, stable=True), x)
    x = make((4, 6, 5), "int32")
    check(lambda t: ember.sort(t, dim=-2, stable=True), x)
    check(lambda t: ember.sort(t[:, ::2, 1:], dim=1, stable=True, descending=True), x)
    check(lambda t: ember.msort(t), make((50, 3), "float64"))


@pytest.mark.parametrize("dtype", SORTABLE)
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("largest", [True, False])
def test_topk(dtype, n, largest):
    if dtype == "bool":  # the CPU's error
        check(lambda t: ember.topk(t, 1), make((n,), dtype))
        return
    for x, dim in rows(dtype, n, seed=2):
        size = x.shape[dim]
        for k in sorted({0, 1, min(size, 7), size // 3, size}):
            v, i = ember.topk(x.cuda(), k, dim=dim, largest=largest)
            same(v, ember.topk(x, k, dim=dim, largest=largest)[0])
            gathers(x, dim, v, i)
    check(lambda t: ember.topk(t, 4, dim=0), make((3,), dtype))  # k too large: the CPU's error


# ---- kthvalue, median, nanmedian, mode

@pytest.mark.parametrize("dtype", SORTABLE)
@pytest.mark.parametrize("n", LENGTHS)
def test_row_stats(dtype, n):
    for x, dim in rows(dtype, n, seed=3):
        if dtype != "bool":
            for k in sorted({1, (x.shape[dim] + 1) // 2, x.shape[dim]}):
                v, i = ember.kthvalue(x.cuda(), k, dim=dim)
                same(v, ember.kthvalue(x, k, dim=dim)[0])
                gathers(x, dim, v.unsqueeze(dim), i.unsqueeze(dim))
            check(lambda t: ember.median(t, dim=dim), x)
            check(lambda t: ember.nanmedian(t, dim=dim), x)
            check(lambda t: ember.median(t), x)
            check(lambda t: ember.nanmedian(t), x)
        if dtype not in FLOATS:  # mode's order of NaNs is unspecified
            v, i = ember.mode(x.cuda(), dim=dim)
            same(v, ember.mode(x, dim=dim)[0])
            gathers(x, dim, v.unsqueeze(dim), i.unsqueeze(dim))


def test_median_nan_rows():
    x = make((6, 9), "float32", nan=False)
    x[1, 3] = float("nan")
    x[1, 7] = float("nan")
    x[4] = float("nan")
    for fn in (ember.median, ember.nanmedian):
        check(lambda t: fn(t, dim=1), x)
        check(lambda t: fn(t, dim=0, keepdim=True), x)


# ---- scans

@pytest.mark.parametrize("dtype", SORTABLE)
@pytest.mark.parametrize("n", LENGTHS)
def test_cummax_cummin(dtype, n):
    for x, dim in rows(dtype, n, seed=4):
        check(lambda t: ember.cummax(t, dim), x)
        check(lambda t: ember.cummin(t, dim), x)


SCAN_TOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-12}


@pytest.mark.parametrize("dtype", SORTABLE)
@pytest.mark.parametrize("n", LENGTHS)
def test_cumsum_cumprod(dtype, n):
    for x, dim in rows(dtype, n, seed=5):
        tol = SCAN_TOL.get(dtype, 0.0)
        check(lambda t: ember.cumsum(t, dim), x, rtol=tol, atol=tol * n ** 0.5)
        near_one = x if dtype not in FLOATS else (x / 64 + 1)  # products stay finite for a while
        check(lambda t: ember.cumprod(t, dim), near_one, rtol=tol * 10, atol=tol)
    x = make((5, 7), dtype)
    check(lambda t: ember.cumsum(t, -1, dtype=ember.float64), x, rtol=1e-12)
    check(lambda t: ember.cumsum(t, 0), make((), dtype))
    check(lambda t: ember.cumsum(t, 1), make((3, 0), dtype))


def test_cumsum_autograd():
    x = make((4, 5), "float32", nan=False).requires_grad_()
    xc = x.detach().cuda().requires_grad_()
    ember.cumsum(x, 1).sum().backward()
    ember.cumsum(xc, 1).sum().backward()
    same(xc.grad, x.grad)


# ---- searchsorted, bucketize, histc, unique

@pytest.mark.parametrize("dtype", [d for d in SORTABLE if d != "bool"])
@pytest.mark.parametrize("n", LENGTHS)
def test_searchsorted(dtype, n):
    bnd = ember.sort(make((n,), dtype, seed=6))[0]
    vals = make((257,), dtype, seed=7)
    for right in (False, True):
        check(lambda b, v: ember.searchsorted(b, v, right=right), bnd, vals)
        check(lambda b, v: ember.searchsorted(b, v, out_int32=True, side="right" if right else "left"), bnd, vals)
        check(lambda v, b: ember.bucketize(v, b, right=right), vals, bnd)
    batched = ember.sort(make((3, min(n, 1000)), dtype, seed=8), dim=-1)[0]
    check(lambda b, v: ember.searchsorted(b, v), batched, make((3, 11), dtype, seed=9))
    check(lambda b, v: ember.searchsorted(b, v), bnd, make((0,), dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [0, 1, 1000, 100_000])
def test_histc(dtype, n):
    x = make((n,), dtype, seed=10)
    for bins, lo, hi in [(10, -3, 3), (7, 0, 0), (1, -1, 1), (100, -5, 4.5)]:
        check(lambda t: ember.histc(t, bins=bins, min=lo, max=hi), x)
    many = ember.zeros(5000, dtype=getattr(ember, dtype))  # a float16 count stops at 2048, as the CPU's
    check(lambda t: ember.histc(t, bins=3, min=-1, max=1), many)


@pytest.mark.parametrize("dtype", SORTABLE)
@pytest.mark.parametrize("n", [0, 1, 1000, 100_000])
def test_unique(dtype, n):
    x = make((n,), dtype, seed=11)
    for consecutive in (False, True):
        fn = ember.unique_consecutive if consecutive else ember.unique
        check(lambda t: fn(t, return_inverse=True, return_counts=True), x)
        check(lambda t: fn(t), x)
    check(lambda t: ember.unique(t, return_counts=True), make((40, 3), dtype, seed=12))


# ---- tril, triu

@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float16", "float32", "float64"])
def test_triangle(dtype):
    x = make((2, 5, 7), dtype, seed=13)
    for diagonal in (-8, -2, 0, 1, 3, 9):
        check(lambda t: ember.tril(t, diagonal), x)
        check(lambda t: ember.triu(t, diagonal), x)
        check(lambda t: ember.triu(t.transpose(-1, -2), diagonal), x)
        check(lambda t: ember.tril(t[:, ::2, 1:], diagonal), x)
        check(lambda t: t.clone().tril_(diagonal), x)
        check(lambda t: t.transpose(0, 2).contiguous().transpose(0, 2).triu_(diagonal), x)
    check(lambda t: ember.tril(t), make((0, 3), dtype))
    check(lambda t: ember.triu(t), make((1000, 1000), dtype))


# ---- scatter, masked_select

SCATTER_DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def scatter_case(dtype, shape, dim, seed, index_shape=None):
    rng = np.random.default_rng(seed)
    self_ = make(shape, dtype, seed, nan=False)
    ishape = index_shape or shape
    index = ember.from_numpy(rng.integers(0, shape[dim], ishape))
    src = make(ishape, dtype, seed + 1, nan=False)
    return self_, index, src


@pytest.mark.parametrize("dtype", SCATTER_DTYPES)
@pytest.mark.parametrize("shape,dim", [((1,), 0), ((1000,), 0), ((100_000,), 0), ((6, 50), -1), ((6, 50), 0),
                                       ((3, 4, 5), 1)])
def test_scatter(dtype, shape, dim):
    s, idx, src = scatter_case(dtype, shape, dim, seed=14)
    tol = dict(rtol=1e-2, atol=1e-2) if dtype in ("float16", "bfloat16") else dict(rtol=1e-5, atol=1e-4)
    check(lambda t, i, u: t.scatter(dim, i, u), s, idx, src)
    check(lambda t, i: t.scatter(dim, i, 2), s, idx)
    if dtype != "bool":
        check(lambda t, i, u: t.scatter_add(dim, i, u), s, idx, src, **tol)
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        if dtype == "bool" and reduce in ("sum", "mean"):
            continue
        for include_self in (True, False):
            check(lambda t, i, u: t.scatter_reduce(dim, i, u, reduce, include_self=include_self), s, idx, src,
                  **(tol if reduce in ("sum", "mean", "prod") else {}))


def test_scatter_layouts_and_errors():
    s, idx, src = scatter_case("float32", (5, 8), 1, seed=15, index_shape=(3, 4))
    check(lambda t, i, u: t.t().scatter(0, i.t(), u.t()), s, idx, src)  # transposed views
    check(lambda t, i, u: t.scatter_add(1, i, u[:, :1].expand(3, 4)), s, idx, src, rtol=1e-6, atol=1e-6)
    bad = idx.clone()
    bad[1, 2] = 8
    check(lambda t, i, u: t.scatter(1, i, u), s, bad, src)
    check(lambda t, i, u: t.scatter_add(1, i, u), s, bad, src)
    check(lambda t, i, u: ember.index_add(t, 0, i, u), make((9, 3), "float32"),
          ember.tensor([0, 8, 3, 3]), make((4, 3), "float32", seed=2), rtol=1e-6, atol=1e-6)
    check(lambda t, i: t.scatter(1, i, 1.5), s, idx[:0])


@pytest.mark.parametrize("dtype", SORTABLE)
@pytest.mark.parametrize("n", [0, 1, 1000, 100_000])
def test_masked_select(dtype, n):
    x = make((n,), dtype, seed=16)
    mask = make((n,), "bool", seed=17)
    check(lambda t, m: ember.masked_select(t, m), x, mask)
    check(lambda t, m: t[m], x, mask)
    y = make((4, 6), dtype, seed=18)
    check(lambda t, m: ember.masked_select(t.t(), m), y, make((6, 1), "bool", seed=19))  # broadcast mask
    check(lambda t, m: ember.masked_select(t, m), y, ember.zeros((4, 6), dtype=ember.bool))


# ---- svd (through the host)

@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (2, 5, 3), (0, 3)])
def test_svd(shape):
    x = ember.from_numpy(np.random.default_rng(20).standard_normal(shape).astype(np.float64))
    check(lambda t: ember.linalg.svdvals(t), x, rtol=1e-12, atol=1e-12)
    u, s, vh = ember.linalg.svd(x.cuda(), full_matrices=False)
    assert u.device.type == "cuda" and vh.device.type == "cuda"
    same((u * s.unsqueeze(-2)) @ vh, x, rtol=1e-10, atol=1e-10)


# ---- ops that build data on the host, on CUDA tensors

def seeded(fn):
    """fn run after one seed: ops drawing from the CPU generator give the CPU's numbers on CUDA too."""
    def run(*args):
        ember.manual_seed(0)
        return fn(*args)
    return run


def seeded_twice_on_cuda(fn, x):
    """fn's CUDA result for one seed, twice: device draws (Philox) repeat for a seed but differ from the CPU's."""
    first, again = seeded(fn)(x.cuda()), seeded(fn)(x.cuda())
    assert first.device.type == "cuda"
    same(again, first.cpu())
    return first.cpu()


@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_dropout(p):
    x = make((8, 5, 6), "float32", nan=False) + 5  # no zeros: a zero in the result is a dropped element
    F = ember.nn.functional
    for fn in (lambda t: F.dropout(t, p, training=True), lambda t: F.dropout(t.clone(), p, training=True, inplace=True),
               lambda t: F.dropout2d(t.unsqueeze(0), p, training=True).squeeze(0)):
        r = seeded_twice_on_cuda(fn, x)
        kept = r != 0
        assert ember.allclose(r[kept], (x / (1 - p))[kept] if p < 1 else r[kept]), p
        assert kept.all().item() if p == 0 else (not kept.any().item()) if p == 1 else 0 < kept.sum().item() < x.numel()
    for fn in (lambda t: F.alpha_dropout(t, p, training=True),
               lambda t: F.feature_alpha_dropout(t.unsqueeze(0), p, training=True)):
        r = seeded_twice_on_cuda(fn, x)
        if p == 0:
            same(r.view(x.shape), x, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
def test_pad(mode):
    F = ember.nn.functional
    x = make((2, 3, 6, 5), "float32", nan=False)
    check(lambda t: F.pad(t, (2, 1, 3, 0), mode=mode), x)
    check(lambda t: F.pad(t[:, :, 0], (1, 3), mode=mode), x)
    check(lambda t: F.pad(t.unsqueeze(2), (1, 1, 2, 0, 1, 0), mode=mode), x)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear"])
def test_interpolate(mode):
    F = ember.nn.functional
    dims = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}.get(mode, 2)
    x = make((2, 3) + (5,) * dims, "float32", nan=False)
    kw = {} if mode.startswith("nearest") else {"align_corners": False}
    check(lambda t: F.interpolate(t, scale_factor=1.7, mode=mode, **kw), x, rtol=1e-5, atol=1e-5)
    check(lambda t: F.interpolate(t, size=(3,) * dims, mode=mode, **kw), x, rtol=1e-5, atol=1e-5)


def test_embedding():
    F = ember.nn.functional
    w = make((10, 4), "float32", nan=False)
    idx = ember.tensor([[1, 3, 3], [9, 0, 1]])
    check(lambda t, i: F.embedding(i, t), w, idx)
    check(lambda t, i: F.embedding(i, t, padding_idx=3), w, idx)
    check(lambda t, i: F.embedding(i, t.clone(), max_norm=1.0), w, idx, rtol=1e-6, atol=1e-6)
    check(lambda t, i: F.embedding_bag(i, t, mode="mean"), w, idx, rtol=1e-6, atol=1e-6)


def test_rrelu():
    F = ember.nn.functional
    x = make((6, 7), "float32", nan=False)
    check(seeded(lambda t: F.rrelu(t, training=True)), x)
    check(seeded(lambda t: F.rrelu(t.clone(), training=True, inplace=True)), x)
    xc = x.cuda().requires_grad_()
    F.rrelu(xc, training=True).sum().backward()
    assert xc.grad.device.type == "cuda"


DEVICE_DRAWN_INITS = {"uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
                      "trunc_normal_", "sparse_"}


@pytest.mark.parametrize("name", ["uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
                                  "kaiming_normal_", "trunc_normal_", "orthogonal_", "sparse_", "eye_", "dirac_",
                                  "zeros_", "ones_", "constant_"])
def test_init_on_cuda_parameters(name):
    init = ember.nn.init
    shape = (3, 4, 3) if name == "dirac_" else (5, 4)
    args = (0.25,) if name in ("sparse_", "constant_") else ()
    cpu = ember.nn.Parameter(ember.zeros(shape))
    gpu = ember.nn.Parameter(ember.zeros(shape, device="cuda"))
    seeded(lambda p: getattr(init, name)(p, *args))(cpu)
    seeded(lambda p: getattr(init, name)(p, *args))(gpu)
    assert gpu.device.type == "cuda"
    if name in DEVICE_DRAWN_INITS:  # drawn on the GPU: repeatable for a seed, and in the CPU's range
        again = ember.nn.Parameter(ember.zeros(shape, device="cuda"))
        seeded(lambda p: getattr(init, name)(p, *args))(again)
        same(again.detach(), gpu.detach().cpu())
        assert gpu.detach().isfinite().all().item() and gpu.detach().unique().numel() > 1
        if name.endswith("uniform_"):  # bounds for (5, 4): 1, sqrt(6 / 9), sqrt(2) sqrt(3 / 4)
            bound = {"uniform_": 1.0, "xavier_uniform_": (6 / 9) ** 0.5, "kaiming_uniform_": 1.5 ** 0.5}[name]
            assert gpu.detach().abs().max().item() <= bound
    else:
        same(gpu.detach(), cpu.detach(), rtol=1e-5, atol=1e-5)


def test_repeat_interleave_and_split_with_cuda_counts():
    x = make((4, 3), "float32")
    check(lambda t, r: ember.repeat_interleave(t, r, dim=0), x, ember.tensor([1, 0, 3, 2]))
    check(lambda t, r: ember.repeat_interleave(r), x, ember.tensor([2, 1]))


def test_overlapping_as_strided_backward():
    x = make((6,), "float64", nan=False).requires_grad_()
    xc = x.detach().cuda().requires_grad_()
    for t in (x, xc):
        t.as_strided((3, 3), (1, 1)).sum().backward()
    same(xc.grad, x.grad)

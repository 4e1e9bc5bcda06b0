"""CUDA gemm (the matmul family) and advanced indexing (gather, scatter, accumulate) against Ember's CPU results."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, to_torch

pytestmark = pytest.mark.cuda

TOL = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10), "float16": (1e-2, 1e-2), "bfloat16": (1e-2, 1e-2)}
FLOATS = list(TOL)
ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
       "float8_e4m3fn", "float8_e5m2"]


def host(shape, dtype, seed, integers=False):
    """A random CPU tensor: uniform in [-1, 1) for floats, small integers otherwise (0/1 for bool)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        arr = rng.integers(0, 2, shape).astype(np.bool_)
    elif integers or dtype not in FLOATS:
        arr = rng.integers(0 if dtype == "uint8" else -3, 4, shape).astype(np.float64)
    else:
        arr = rng.uniform(-1, 1, shape)
    return ember.from_numpy(np.ascontiguousarray(arr)).to(getattr(ember, dtype))


def same(gpu, cpu, dtype="float64"):
    """The CUDA result equals the CPU one: device, dtype, shape, strides and values (within dtype's tolerance)."""
    assert gpu.device.type == "cuda", gpu.device
    assert (gpu.stride(), gpu.storage_offset()) == (cpu.stride(), cpu.storage_offset())
    rtol, atol = TOL.get(dtype, (0, 0))
    assert_same(gpu, to_torch(cpu), check_strides=False, rtol=rtol, atol=atol)


# Layouts of a 2-D operand, applied to the same values on both devices: each returns a view of `x`-shaped data.
LAYOUTS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.t().contiguous().t(),                        # column-major: a transpose flag
    "offset": lambda x: ember.cat([x, x], 1)[:, 1:x.shape[1] + 1],         # row-major, ld > cols, misaligned base
    "offset_t": lambda x: ember.cat([x, x], 0).t().contiguous().t()[1:x.shape[0] + 1],
    "strided": lambda x: ember.stack([x, x], 2)[:, :, 0],                  # neither: a copy
}


def both(fn, *tensors):
    """fn over the CPU tensors and over their CUDA copies."""
    return fn(*tensors), fn(*[t.to("cuda") for t in tensors])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("la", list(LAYOUTS))
@pytest.mark.parametrize("lb", ["contiguous", "transposed", "offset", "strided"])
@pytest.mark.parametrize("mkn", [(64, 48, 80), (33, 65, 17), (1, 7, 5), (5, 7, 1), (1, 1, 1), (1, 9, 1)], ids=str)
def test_mm_layouts(dtype, la, lb, mkn):
    m, k, n = mkn
    a, b = host((m, k), dtype, 1), host((k, n), dtype, 2)
    cpu, gpu = both(lambda a, b: ember.mm(LAYOUTS[la](a), LAYOUTS[lb](b)), a, b)
    same(gpu, cpu, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mkn", [(0, 3, 4), (3, 4, 0), (0, 0, 0), (3, 0, 4), (1, 0, 1)], ids=str)
def test_mm_empty(dtype, mkn):
    m, k, n = mkn
    cpu, gpu = both(ember.mm, host((m, k), dtype, 1), host((k, n), dtype, 2))
    same(gpu, cpu, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("beta,alpha", [(0.5, 2.0), (0.0, 1.0), (1.0, -1.0), (2.0, 0.0)])
@pytest.mark.parametrize("k", [0, 7])
def test_addmm(dtype, beta, alpha, k):
    c = host((5, 6), dtype, 3)
    if beta == 0:
        c = ember.full((5, 6), float("nan"), dtype=getattr(ember, dtype))  # beta = 0 ignores NaNs in the input
    fn = lambda c, a, b: ember.addmm(c, a, b, beta=beta, alpha=alpha)  # noqa: E731
    cpu, gpu = both(fn, c, host((5, k), dtype, 1), host((k, 6), dtype, 2))
    same(gpu, cpu, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("sa,sb", [((4, 5, 7), (4, 7, 3)), ((2, 1, 5, 7), (3, 7, 4)), ((7,), (3, 7, 2)),
                                   ((3, 5, 7), (7,)), ((6, 7), (7,)), ((7,), (7,)), ((7,), (7, 2)),
                                   ((4, 5, 7), (7, 3)), ((2, 0, 3), (2, 3, 4)), ((2, 3, 0), (2, 0, 4))], ids=str)
def test_matmul_batched(dtype, sa, sb):
    cpu, gpu = both(ember.matmul, host(sa, dtype, 1), host(sb, dtype, 2))
    same(gpu, cpu, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_bmm_baddbmm_mv_dot(dtype):
    a, b, c = host((3, 4, 6), dtype, 1), host((3, 6, 5), dtype, 2), host((3, 4, 5), dtype, 3)
    cpu, gpu = both(lambda a, b: ember.bmm(a, b.transpose(1, 2).contiguous().transpose(1, 2)), a, b)
    same(gpu, cpu, dtype)
    cpu, gpu = both(lambda c, a, b: ember.baddbmm(c, a, b, beta=0.5, alpha=2.0), c, a, b)
    same(gpu, cpu, dtype)
    m, v = host((9, 6), dtype, 4), host((6,), dtype, 5)
    cpu, gpu = both(lambda m, v: ember.mv(m.t().contiguous().t(), v), m, v)
    same(gpu, cpu, dtype)
    cpu, gpu = both(lambda v, w: ember.dot(v, w[::2]), v, host((12,), dtype, 6))
    same(gpu, cpu, dtype)
    cpu, gpu = both(lambda c, m, v: ember.addmv(c, m, v, beta=2.0, alpha=0.5), host((9,), dtype, 7), m, v)
    same(gpu, cpu, dtype)


def test_large_mm_float32_is_full_precision():
    # 1024-long dot products of [-1, 1) values: TF32 inputs (10-bit mantissas) would miss by ~1e-3 relative.
    a, b = host((256, 1024), "float32", 1), host((1024, 128), "float32", 2)
    cpu, gpu = both(ember.mm, a, b)
    exact = torch.from_numpy(a.to(ember.float64).numpy()) @ torch.from_numpy(b.to(ember.float64).numpy())
    err = (to_torch(gpu).double() - exact).abs().max().item()
    assert err < 1e-3, err
    same(gpu, cpu, "float32")


@pytest.mark.parametrize("dtype,name", [("int64", "Long"), ("int32", "Int"), ("int16", "Short"), ("int8", "Char"),
                                        ("uint8", "Byte"), ("bool", "Bool")])
def test_integer_matmul_raises_as_torch_cuda(dtype, name):
    a, b = host((2, 3), dtype, 1).to("cuda"), host((3, 4), dtype, 2).to("cuda")
    with pytest.raises(RuntimeError, match=f'"addmm_cuda" not implemented for \'{name}\''):
        ember.mm(a, b)
    with pytest.raises(RuntimeError, match=f"not implemented for '{name}'"):  # torch names bmm_cuda here
        ember.matmul(a.unsqueeze(0), b.unsqueeze(0))
    # torch's empty products and K = 0 return before its dtype dispatch
    cpu, gpu = both(ember.mm, host((2, 0), dtype, 1), host((0, 4), dtype, 2))
    same(gpu, cpu, dtype)
    cpu, gpu = both(ember.mm, host((0, 3), dtype, 1), host((3, 4), dtype, 2))
    same(gpu, cpu, dtype)


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
def test_float8_matmul_raises(dtype):
    a = host((2, 3), dtype, 1).to("cuda")
    with pytest.raises(NotImplementedError, match="addmm_cuda"):
        ember.mm(a, a.t())


# ---- indexing: x[idx] (gather), x[idx] = v and index_put_ (scatter, accumulate) ----

def long(values):
    return ember.tensor(values, dtype=ember.int64)


# (shape of x, a function of x giving the view indexed, the index tuple built from CPU tensors)
INDEXINGS = [
    ((7, 3), lambda x: x, lambda: (long([0, 2, 6, -1, 2]),)),
    ((7,), lambda x: x, lambda: (long([[0, 1], [6, 3]]),)),
    ((5, 6, 4), lambda x: x, lambda: (slice(None), long([5, 0, 0, 2]))),                 # rest before the index
    ((5, 6, 4), lambda x: x, lambda: (long([1, 4]), slice(None), long([[3], [0]]))),     # apart: index dims first
    ((5, 6, 4), lambda x: x.transpose(1, 2), lambda: (long([4, 0, 3]),)),                # strided rest block
    ((5, 6, 4), lambda x: x[1:, ::2], lambda: (long([3, 1]), slice(None), long([2, 2]))),
    ((6, 5), lambda x: x, lambda: (ember.tensor([True, False, True, True, False, True]),)),  # a mask of one dim
    ((6, 5), lambda x: x, lambda: (long(3),)),                                              # 0-dim index
    ((5, 8), lambda x: x[:, 1:5], lambda: (long([4, 0, 4, 2]),)),                         # 16-byte rows, misaligned
    ((4, 3), lambda x: x, lambda: (long([]),)),                                             # no indices
    ((5, 6, 4), lambda x: x[:, 1:].transpose(0, 2), lambda: (long([[1], [3]]), long([[0, 2, 2]]))),  # broadcast
]
TENSORS_ONLY = [k for k, (_, _, index) in enumerate(INDEXINGS) if not any(isinstance(i, slice) for i in index())]


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("case", range(len(INDEXINGS)))
def test_index_gather(dtype, case):
    shape, view, index = INDEXINGS[case]
    x = host(shape, dtype, case)
    cpu = view(x)[index()]
    gpu = view(x.to("cuda"))[index()]
    same(gpu, cpu, dtype)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("case", range(len(INDEXINGS)))
def test_index_put(dtype, case):
    shape, view, index = INDEXINGS[case]
    x = host(shape, dtype, case)
    v = view(host(shape, dtype, 100 + case))[index()]  # repeated indices write equal values: a deterministic result
    cpu, gpu = x.clone(), x.to("cuda")
    view(cpu)[index()] = v
    view(gpu)[index()] = v.to("cuda")
    same(gpu, cpu, dtype)
    s = host((), dtype, 200 + case)
    cpu, gpu = x.clone(), x.to("cuda")  # a broadcast value
    view(cpu)[index()] = s
    view(gpu)[index()] = s.to("cuda")
    same(gpu, cpu, dtype)


@pytest.mark.parametrize("dtype", [d for d in ALL if not d.startswith("float8")])
@pytest.mark.parametrize("case", TENSORS_ONLY)  # index_put_ takes no slices
def test_index_put_accumulate(dtype, case):
    shape, view, index = INDEXINGS[case]
    x = host(shape, dtype, case, integers=True)
    v = host(tuple(view(x)[index()].shape), dtype, 100 + case, integers=True)
    cpu, gpu = x.clone(), x.to("cuda")
    view(cpu).index_put_(index(), v, accumulate=True)
    view(gpu).index_put_(index(), v.to("cuda"), accumulate=True)
    same(gpu, cpu, dtype)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64"])
def test_index_put_accumulate_duplicates(dtype):
    # Many writers to few elements: atomics (4- and 8-byte types) and the compare-and-swap loop (1 and 2 bytes),
    # neighbours in one 32-bit word included. Integer sums wrap the same in any order; float ones stay exact.
    rng = np.random.default_rng(0)
    n = 100_000 if dtype in ("int16", "uint8", "int8", "int32", "int64", "float32", "float64", "bool") else 300
    idx = ember.from_numpy(rng.integers(0, 9, n).astype(np.int64))
    x = host((9, 2), dtype, 1, integers=True)
    v = host((n, 2), dtype, 2, integers=True)
    cpu, gpu = x.clone(), x.to("cuda")
    cpu.index_put_((idx,), v, accumulate=True)
    gpu.index_put_((idx,), v.to("cuda"), accumulate=True)
    same(gpu, cpu, dtype)
    flat = x.reshape(-1)
    cpu, gpu = flat.clone(), flat.to("cuda")  # single elements of a 1-byte or 2-byte type: sub-word addresses
    cpu.index_put_((idx,), v[:, 0].contiguous(), accumulate=True)
    gpu.index_put_((idx,), v[:, 0].contiguous().to("cuda"), accumulate=True)
    same(gpu, cpu, dtype)


@pytest.mark.parametrize("width", [1027, 1024])
def test_index_many_rows(width):
    # Rows element by element (1027) and in 16-byte vectors (1024), with negative indices.
    x = host((64, width), "float32", 1)
    idx = ember.from_numpy(np.random.default_rng(1).integers(-64, 64, 20_001).astype(np.int64))
    same(x.to("cuda")[idx], x[idx], "float32")
    v = host((64, width), "float32", 2)[idx]  # repeated indices write equal values: a deterministic result
    v_odd = ember.cat([ember.zeros(1), v.reshape(-1)]).to("cuda")[1:].view(v.shape)  # at an odd address
    cpu, gpu = x.clone(), x.to("cuda")
    cpu[idx] = v
    gpu[idx] = v_odd
    same(gpu, cpu, "float32")

"""Batched matmul (bmm, baddbmm, batched matmul) through kernels::gemm_batched: CUDA against Ember's CPU results,
the CPU path against torch, device checks, and the TF32 switch (ember.backends.cuda.matmul.allow_tf32)."""
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, to_torch

TOL = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10), "float16": (1e-2, 1e-2), "bfloat16": (1e-2, 1e-2)}
FLOATS = list(TOL)


def host(shape, dtype, seed):
    """A random CPU tensor: uniform in [-1, 1) for floats, small integers otherwise."""
    rng = np.random.default_rng(seed)
    arr = rng.uniform(-1, 1, shape) if dtype in FLOATS else rng.integers(-3, 4, shape).astype(np.float64)
    return ember.from_numpy(np.ascontiguousarray(arr)).to(getattr(ember, dtype))


def same(gpu, cpu, dtype):
    """The CUDA result equals the CPU one: device, dtype, shape, strides and values (within dtype's tolerance)."""
    assert gpu.device.type == "cuda", gpu.device
    assert gpu.stride() == cpu.stride()
    rtol, atol = TOL.get(dtype, (0, 0))
    assert_same(gpu, to_torch(cpu), check_strides=False, rtol=rtol, atol=atol)


def both(fn, *tensors):
    """fn over the CPU tensors and over their CUDA copies."""
    return fn(*tensors), fn(*[t.to("cuda") for t in tensors])


# Layouts of a 3-D operand (B, R, C), applied to the same values on both devices.
LAYOUTS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.transpose(1, 2).contiguous().transpose(1, 2),   # column-major matrices
    "batch_inner": lambda x: x.transpose(0, 1).contiguous().transpose(0, 1),  # batch stride C, ld B * C
    "offset": lambda x: ember.cat([x, x], 2)[:, :, 1:x.shape[2] + 1],         # ld > cols, misaligned base
    "strided": lambda x: ember.stack([x, x], 3)[..., 0],                      # neither row- nor column-major
    "broadcast": lambda x: x[:1].expand(x.shape),                             # batch stride 0
}

SHAPES = [(4, 33, 17, 9), (3, 64, 48, 80), (1, 5, 7, 3), (0, 3, 4, 5), (2, 3, 0, 5), (2, 0, 4, 3), (5, 1, 9, 1)]


@pytest.fixture
def restore_tf32():
    saved = ember.backends.cuda.matmul.allow_tf32, ember.get_float32_matmul_precision()
    yield
    ember.set_float32_matmul_precision(saved[1])
    ember.backends.cuda.matmul.allow_tf32 = saved[0]


# ---- CUDA against Ember's CPU ----

@pytest.mark.cuda
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("la", list(LAYOUTS))
@pytest.mark.parametrize("lb", ["contiguous", "transposed", "offset", "strided", "broadcast"])
@pytest.mark.parametrize("bmkn", SHAPES, ids=str)
def test_bmm_layouts(dtype, la, lb, bmkn):
    b, m, k, n = bmkn
    x, y = host((b, m, k), dtype, 1), host((b, k, n), dtype, 2)
    cpu, gpu = both(lambda x, y: ember.bmm(LAYOUTS[la](x), LAYOUTS[lb](y)), x, y)
    same(gpu, cpu, dtype)


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("beta,alpha", [(0.5, 2.0), (0.0, 1.0), (0.0, 3.0), (1.0, -1.0), (2.0, 0.0)])
@pytest.mark.parametrize("k", [0, 7])
@pytest.mark.parametrize("cshape", [(3, 4, 5), (1, 4, 5), (5,)], ids=str)
def test_baddbmm(dtype, beta, alpha, k, cshape):
    c = host(cshape, dtype, 3)
    if beta == 0:
        c = ember.full(cshape, float("nan"), dtype=getattr(ember, dtype))  # beta = 0 ignores NaNs in the input
    fn = lambda c, x, y: ember.baddbmm(c, x, LAYOUTS["transposed"](y), beta=beta, alpha=alpha)  # noqa: E731
    cpu, gpu = both(fn, c, host((3, 4, k), dtype, 1), host((3, k, 5), dtype, 2))
    same(gpu, cpu, dtype)


@pytest.mark.cuda
def test_baddbmm_refuses_mixed_input_dtype():
    # torch 2.13 on either device: "Input dtypes must be the same" (no promotion of the added input)
    args = host((3, 4, 5), "float64", 3), host((3, 4, 6), "float32", 1), host((3, 6, 5), "float32", 2)
    for device in ("cpu", "cuda"):
        with pytest.raises(RuntimeError, match="Input dtypes must be the same, got: input double, batch1: float"):
            ember.baddbmm(*(t.to(device) for t in args), beta=0.5, alpha=2.0)


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("sa,sb", [((4, 5, 7), (4, 7, 3)), ((2, 1, 5, 7), (3, 7, 4)), ((5, 7), (6, 7, 4)),
                                   ((1, 5, 7), (6, 7, 4)), ((6, 5, 7), (1, 7, 4)), ((7,), (3, 7, 2)),
                                   ((3, 5, 7), (7,)), ((2, 0, 3), (2, 3, 4)), ((2, 3, 0), (2, 0, 4)),
                                   ((0, 3, 4), (4, 2))], ids=str)
def test_matmul_batched(dtype, sa, sb):
    cpu, gpu = both(ember.matmul, host(sa, dtype, 1), host(sb, dtype, 2))
    same(gpu, cpu, dtype)


@pytest.mark.cuda
def test_bmm_many_small_batches():
    x, y = host((5000, 3, 2), "float32", 1), host((5000, 2, 4), "float32", 2)
    cpu, gpu = both(ember.bmm, x, y)
    same(gpu, cpu, "float32")


@pytest.mark.cuda
@pytest.mark.parametrize("dtype,name", [("int64", "Long"), ("int32", "Int"), ("bool", "Bool")])
def test_integer_bmm_raises_as_torch_cuda(dtype, name):
    x, y = host((2, 3, 4), dtype, 1).to("cuda"), host((2, 4, 5), dtype, 2).to("cuda")
    with pytest.raises(NotImplementedError, match=f'"baddbmm_cuda" not implemented for \'{name}\''):
        ember.bmm(x, y)
    with pytest.raises(NotImplementedError, match=f'"baddbmm_cuda" not implemented for \'{name}\''):
        ember.baddbmm(ember.zeros(2, 3, 5, dtype=x.dtype, device="cuda"), x, y)
    # torch returns before its dtype dispatch for empty products and K = 0
    cpu, gpu = both(ember.bmm, host((2, 3, 0), dtype, 1), host((2, 0, 5), dtype, 2))
    same(gpu, cpu, dtype)
    cpu, gpu = both(ember.bmm, host((0, 3, 4), dtype, 1), host((0, 4, 5), dtype, 2))
    same(gpu, cpu, dtype)


@pytest.mark.cuda
@pytest.mark.parametrize("op,args,method,arg,where", [
    ("mm", [(2, 3), (3, 4)], "wrapper_CUDA_mm", "mat2", 1),
    ("mm", [(2, 3), (5, 4)], "wrapper_CUDA_mm", "self", 0),   # the device check comes before the shape check
    ("bmm", [(2, 2, 3), (2, 3, 4)], "wrapper_CUDA_bmm", "mat2", 1),
    ("matmul", [(2, 2, 3), (2, 3, 4)], "wrapper_CUDA_bmm", "mat2", 1),
    ("matmul", [(2, 3), (3, 4)], "wrapper_CUDA_mm", "mat2", 1),
    ("baddbmm", [(2, 2, 4), (2, 2, 3), (2, 3, 4)], "wrapper_CUDA_baddbmm", "batch2", 2),
    ("baddbmm", [(2, 2, 4), (2, 2, 3), (2, 3, 4)], "wrapper_CUDA_baddbmm", "self", 0),
    ("addmm", [(2, 4), (2, 3), (3, 4)], "wrapper_CUDA_addmm", "mat1", 1),
    ("dot", [(3,), (3,)], "wrapper_CUDA__dot", "tensor", 1),
])
def test_mixed_devices_raise_first(op, args, method, arg, where):
    tensors = [host(s, "float32", i).to("cuda") for i, s in enumerate(args)]
    tensors[where] = tensors[where].cpu()
    first = "cuda:0" if where else "cpu"
    other = "cpu" if where else "cuda:0"
    if where == 0:  # the first operand sets the device the others are compared with
        arg = {"mm": "mat2", "baddbmm": "batch1"}[op]
    with pytest.raises(RuntimeError) as info:
        getattr(ember, op)(*tensors)
    assert str(info.value) == (f"Expected all tensors to be on the same device, but got {arg} is on {other}, "
                               f"different from other tensors on {first} (when checking argument in method {method})")


@pytest.mark.cuda
def test_tf32_switch(restore_tf32):
    # 1024-long dot products of [-1, 1) values: TF32 inputs (10-bit mantissas) miss by ~1e-3 relative, float32 not.
    x, y = host((4, 128, 1024), "float32", 1), host((4, 1024, 64), "float32", 2)
    exact = torch.from_numpy(x.to(ember.float64).numpy()) @ torch.from_numpy(y.to(ember.float64).numpy())
    gx, gy = x.to("cuda"), y.to("cuda")

    def error(fn, expected=exact):
        return (to_torch(fn(gx, gy)).double() - expected).abs().max().item()

    ember.backends.cuda.matmul.allow_tf32 = False
    full = error(ember.bmm), error(lambda a, b: ember.mm(a[1], b[1]), exact[1])
    assert max(full) < 1e-4, full
    ember.backends.cuda.matmul.allow_tf32 = True
    tf32 = error(ember.bmm), error(lambda a, b: ember.mm(a[1], b[1]), exact[1])
    assert all(1e-4 < e < 0.1 for e in tf32), tf32
    ember.set_float32_matmul_precision("highest")
    assert error(ember.bmm) < 1e-4
    ember.set_float32_matmul_precision("medium")
    assert 1e-4 < error(ember.bmm) < 0.1
    # other dtypes ignore the switch
    cpu, gpu = both(ember.bmm, x.double(), y.double())
    same(gpu, cpu, "float64")


# ---- the CPU path against torch ----

@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "int64"])
@pytest.mark.parametrize("la", list(LAYOUTS))
@pytest.mark.parametrize("lb", ["contiguous", "transposed", "broadcast"])
@pytest.mark.parametrize("bmkn", SHAPES + [(3, 80, 70, 90)], ids=str)
def test_cpu_bmm_matches_torch(dtype, la, lb, bmkn):
    b, m, k, n = bmkn
    x, y = LAYOUTS[la](host((b, m, k), dtype, 1)), LAYOUTS[lb](host((b, k, n), dtype, 2))
    rtol, atol = {"bfloat16": (1e-2, 1e-2), "float32": (1e-5, 1e-5)}.get(dtype, (1e-12, 1e-12))
    assert_same(ember.bmm(x, y), torch.bmm(to_torch(x), to_torch(y)), rtol=rtol, atol=atol)
    c = host((1, m, n), dtype, 3)
    assert_same(ember.baddbmm(c, x, y, beta=2, alpha=3), torch.baddbmm(to_torch(c), to_torch(x), to_torch(y),
                                                                       beta=2, alpha=3), rtol=rtol, atol=atol)


@pytest.mark.parametrize("sa,sb", [((5, 7), (6, 7, 4)), ((2, 1, 5, 7), (3, 7, 4)), ((1, 5, 7), (6, 7, 4))], ids=str)
def test_cpu_matmul_broadcast_matches_torch(sa, sb):
    x, y = host(sa, "float64", 1), host(sb, "float64", 2)
    assert_same(ember.matmul(x, y), torch.matmul(to_torch(x), to_torch(y)), rtol=1e-12, atol=1e-12)


def test_cpu_bmm_grad_unchanged():
    x, y = host((3, 4, 5), "float64", 1).requires_grad_(), host((3, 5, 2), "float64", 2).requires_grad_()
    tx, ty = to_torch(x.detach()).requires_grad_(), to_torch(y.detach()).requires_grad_()
    ember.bmm(x, y).sum().backward()
    torch.bmm(tx, ty).sum().backward()
    assert_same(x.grad, tx.grad, rtol=1e-12, atol=1e-12)
    assert_same(y.grad, ty.grad, rtol=1e-12, atol=1e-12)


# ---- the TF32 switch's API, with or without a GPU ----

def test_allow_tf32_flag(restore_tf32):
    matmul = ember.backends.cuda.matmul
    assert type(matmul).__name__ == type(torch.backends.cuda.matmul).__name__
    for value in [True, False, True]:
        matmul.allow_tf32 = value
        assert matmul.allow_tf32 is value
    with pytest.raises(RuntimeError, match="set_allow_tf32_cublas expects a bool, but got int"):
        matmul.allow_tf32 = 1
    with pytest.raises(AttributeError, match="Unknown attribute foo"):
        matmul.foo  # noqa: B018
    with pytest.raises(AttributeError, match="Unknown attribute foo"):
        matmul.foo = 1


def test_float32_matmul_precision_as_torch(restore_tf32):
    saved = torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision()
    try:
        steps = [("precision", "highest"), ("tf32", True), ("tf32", False), ("precision", "high"),
                 ("precision", "highest"), ("precision", "medium"), ("precision", "highest")]
        for kind, value in steps:
            for lib in (torch, ember):
                if kind == "precision":
                    lib.set_float32_matmul_precision(value)
                else:
                    lib.backends.cuda.matmul.allow_tf32 = value
            assert ember.get_float32_matmul_precision() == torch.get_float32_matmul_precision(), (kind, value)
            assert ember.backends.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32, (kind, value)
        for lib in (torch, ember):
            with pytest.raises(RuntimeError, match="set_float32_matmul_precision expects a str, but got int"):
                lib.set_float32_matmul_precision(3)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                lib.set_float32_matmul_precision("HIGH")
            assert [w.category for w in caught] == [UserWarning]
            assert "HIGH is not one of 'highest', 'high', or 'medium'" in str(caught[0].message)
            assert lib.get_float32_matmul_precision() == "highest"
    finally:
        torch.set_float32_matmul_precision(saved[1])
        torch.backends.cuda.matmul.allow_tf32 = saved[0]

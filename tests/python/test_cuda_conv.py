"""CUDA convolutions (cuDNN, src/cuda/nn/conv.cpp) against Ember's CPU: conv1d/2d/3d with stride, padding ('same'
with even kernels: asymmetric), dilation, groups (depthwise too), with and without bias, in float32/float64/float16/
bfloat16, forward and both gradients; ConvTranspose2d (output_padding: the padding after differs from before); the
TF32, benchmark and deterministic switches (ember.backends.cudnn); the seed CNN's training step on CUDA."""
import os
import re
import sys

import numpy as np
import pytest
import torch

import ember
from conftest import to_torch

F = ember.nn.functional
cudnn = ember.backends.cudnn
cuda = pytest.mark.cuda
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")

# max |cuda - reference| allowed, relative to max(1, max |reference|): the reference is the CPU's float64 result from
# the same (rounded) values; half types also round the result
TOL = {"float64": 1e-12, "float32": 5e-5, "float16": 1e-2, "bfloat16": 5e-2}
TF32_TOL = 5e-3


@pytest.fixture
def no_tf32():
    """Full float32 convolutions for tight comparisons (torch's default allows TF32)."""
    saved = cudnn.allow_tf32
    cudnn.allow_tf32 = False
    yield
    cudnn.allow_tf32 = saved


@pytest.fixture
def restore_switches():
    saved = cudnn.allow_tf32, cudnn.benchmark, cudnn.deterministic
    yield
    cudnn.allow_tf32, cudnn.benchmark, cudnn.deterministic = saved


def host(shape, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    return ember.from_numpy(np.ascontiguousarray(scale * rng.standard_normal(shape)))


def close(got, ref, tol):
    """got (any device, any float dtype) is within tol of the float64 reference, relative to its largest value."""
    g, r = to_torch(got.detach().cpu().to(ember.float64)), to_torch(ref.detach())
    assert g.shape == r.shape
    bound = tol * max(1.0, r.abs().max().item() if r.numel() else 0.0)
    err = (g - r).abs().max().item() if r.numel() else 0.0
    assert err <= bound, (err, bound)


def results(fn, tensors, dtype, device):
    """fn's output and the gradients of its tensor arguments, after backward of sum(output * weights) with fixed
    weights; the arguments are the given float64 CPU tensors rounded to `dtype` and placed on `device`."""
    leaves = [None if t is None else t.to(getattr(ember, dtype)).to(device).requires_grad_() for t in tensors]
    out = fn(*leaves)
    gy = host(tuple(out.shape), 99).to(out.dtype).to(device)
    out.backward(gy)
    return [out] + [None if t is None else t.grad for t in leaves]


def check_against_cpu(fn, tensors, dtype, tol=None):
    """fn on CUDA in `dtype` against fn on the CPU in float64 from the same rounded values."""
    rounded = [None if t is None else t.to(getattr(ember, dtype)).to(ember.float64) for t in tensors]
    ref = results(fn, rounded, "float64", "cpu")
    got = results(fn, tensors, dtype, "cuda")
    for g, r in zip(got, ref, strict=True):
        assert (g is None) == (r is None)
        if g is None:
            continue
        assert g.device.type == "cuda" and str(g.dtype) == f"torch.{dtype}"
        close(g, r, tol if tol is not None else TOL[dtype])


# (conv, input shape, weight shape, keyword arguments)
CASES = {
    "1d_stride_pad": (F.conv1d, (2, 4, 17), (6, 4, 3), dict(stride=2, padding=1)),
    "1d_dilated_same_even": (F.conv1d, (2, 4, 16), (6, 4, 4), dict(padding="same", dilation=1)),
    "1d_groups": (F.conv1d, (3, 6, 12), (9, 2, 5), dict(groups=3, padding=2)),
    "2d_cnn_layer": (F.conv2d, (4, 3, 16, 16), (8, 3, 3, 3), dict(padding=1)),
    "2d_stride_dilation": (F.conv2d, (2, 3, 13, 14), (5, 3, 3, 2),
                           dict(stride=(2, 3), padding=(1, 2), dilation=(2, 1))),
    "2d_uncovered_input": (F.conv2d, (2, 3, 11, 10), (4, 3, 3, 3), dict(stride=4)),
    "2d_same_even": (F.conv2d, (2, 3, 9, 10), (5, 3, 4, 2), dict(padding="same", dilation=(1, 3))),
    "2d_groups": (F.conv2d, (2, 4, 8, 8), (6, 2, 3, 3), dict(groups=2, padding=1)),
    "2d_depthwise": (F.conv2d, (2, 4, 9, 8), (8, 1, 3, 3), dict(groups=4, padding=1)),
    "2d_pointwise": (F.conv2d, (3, 16, 7, 7), (32, 16, 1, 1), {}),
    "3d": (F.conv3d, (2, 3, 5, 6, 7), (4, 3, 3, 2, 3), dict(stride=(1, 2, 1), padding=(1, 0, 1))),
    "3d_same_groups": (F.conv3d, (1, 4, 6, 5, 4), (4, 2, 2, 3, 2), dict(padding="same", groups=2)),
}


@cuda
@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("case", list(CASES))
def test_conv_matches_cpu(case, bias, dtype, no_tf32):
    conv, xs, ws, kw = CASES[case]
    fan_in = int(np.prod(ws[1:]))
    tensors = [host(xs, 1), host(ws, 2, fan_in ** -0.5), host((ws[0],), 3) if bias else None]
    check_against_cpu(lambda x, w, b: conv(x, w, b, **kw), tensors, dtype)


@cuda
@pytest.mark.parametrize("dtype", list(TOL))
def test_conv_transpose2d_module(dtype, no_tf32):
    # output_padding 1: the transposed input's padding after is smaller than before (cuDNN's gradient runs past it)
    for kw in (dict(stride=2, padding=1, output_padding=1, groups=2), dict(stride=(2, 3), padding=0, dilation=2,
                                                                            output_padding=(1, 0))):
        ember.manual_seed(0)
        m = ember.nn.ConvTranspose2d(4, 6, 3, **kw).to(ember.float64)
        params = [m.weight.detach().clone(), m.bias.detach().clone()]

        def fn(x, w, b, kw=kw):
            return F.conv_transpose2d(x, w, b, **kw)
        check_against_cpu(fn, [host((2, 4, 7, 6), 5)] + params, dtype)
        out = m.to(getattr(ember, dtype)).cuda()(host((2, 4, 7, 6), 5).to(getattr(ember, dtype)).cuda())
        assert out.device.type == "cuda"


@cuda
def test_tf32_allowed_loose(restore_switches):
    # a convolution large enough for tensor cores, with TF32 on (torch's default): close within TF32's rounding
    cudnn.allow_tf32 = True
    tensors = [host((8, 64, 16, 16), 1), host((64, 64, 3, 3), 2, (64 * 9) ** -0.5), host((64,), 3)]
    check_against_cpu(lambda x, w, b: F.conv2d(x, w, b, padding=1), tensors, "float32", TF32_TOL)


@cuda
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_benchmark_and_deterministic(dtype, restore_switches):
    cudnn.allow_tf32 = False
    tensors = [host((4, 8, 12, 12), 1), host((16, 8, 3, 3), 2, (8 * 9) ** -0.5), host((16,), 3)]

    def fn(x, w, b):
        return F.conv2d(x, w, b, padding=1, stride=1)
    for benchmark in (True, False):
        cudnn.benchmark = benchmark
        check_against_cpu(fn, tensors, dtype)
    cudnn.benchmark, cudnn.deterministic = True, True
    runs = [results(fn, tensors, dtype, "cuda") for _ in range(2)]
    for a, b in zip(*runs):
        assert torch.equal(to_torch(a.detach()), to_torch(b.detach()))


@cuda
def test_layouts_and_empty(no_tf32):
    # a channels-last input gives a channels-last output, as on the CPU; empty batches and channels give zeros
    x, w = host((2, 3, 8, 8), 1).float(), host((4, 3, 3, 3), 2).float()
    xl = x.contiguous(memory_format=ember.channels_last)
    cpu, gpu = F.conv2d(xl, w, padding=1), F.conv2d(xl.cuda(), w.cuda(), padding=1)
    assert gpu.stride() == cpu.stride()
    close(gpu, cpu.double(), TOL["float32"])
    strided = host((2, 3, 16, 9), 4).float()[:, :, ::2, 1:]
    close(F.conv2d(strided.cuda(), w.cuda()), F.conv2d(strided, w).double(), TOL["float32"])
    for xs, ws in (((0, 3, 8, 8), (4, 3, 3, 3)), ((2, 0, 8, 8), (4, 0, 3, 3))):
        xe = ember.zeros(xs, device="cuda", requires_grad=True)
        we = ember.ones(ws, device="cuda", requires_grad=True)
        b = ember.ones(4, device="cuda", requires_grad=True)
        out = F.conv2d(xe, we, b)
        out.sum().backward()
        ref = F.conv2d(ember.zeros(xs), ember.ones(ws), ember.ones(4))
        assert tuple(out.shape) == tuple(ref.shape)
        assert torch.equal(to_torch(out.detach()), to_torch(ref))
        assert tuple(xe.grad.shape) == xs and tuple(we.grad.shape) == ws


@cuda
def test_batch_past_int32_elements(no_tf32):
    # 5 x 2 x 16416 x 16384 float32 (2.7e9 elements, 11 GB): cuDNN counts in int, so the batch runs in slices of 3
    # and 2 samples, the weight gradient accumulating over them. Values that make every result exact or a plain count.
    if ember.cuda.mem_get_info()[0] < 48 << 30:
        pytest.skip("needs 48 GiB of free GPU memory")
    n, h, w = 5, 16416, 16384
    x = ember.ones(n, 2, h, w, device="cuda", requires_grad=True)
    with ember.no_grad():
        x[:, 1].fill_(2.0)
        x[1].fill_(-1.0)
    weight = ember.tensor([[[[0.5]], [[0.25]]]], device="cuda", requires_grad=True)
    bias = ember.zeros(1, device="cuda", requires_grad=True)
    y = F.conv2d(x, weight, bias)
    for i in range(n):
        expected = -0.75 if i == 1 else 1.0
        assert y[i].min().item() == expected and y[i].max().item() == expected, i
    y.backward(ember.ones_like(y))
    del y
    positions = h * w
    # sum of x * dy per input channel: channel 0 holds 1 (-1 in sample 1), channel 1 holds 2 (-1 in sample 1)
    expect = torch.tensor([3.0 * positions, 7.0 * positions], dtype=torch.float64)
    got = to_torch(weight.grad.cpu()).double().flatten()
    torch.testing.assert_close(got, expect, rtol=1e-4, atol=0)
    assert abs(bias.grad.item() - n * positions) <= 1e-4 * n * positions
    for c, value in ((0, 0.5), (1, 0.25)):
        assert x.grad[:, c].min().item() == value and x.grad[:, c].max().item() == value


@cuda
def test_device_and_dtype_errors():
    x = ember.ones(1, 2, 5, 5, device="cuda")
    w = ember.ones(3, 2, 3, 3)
    with pytest.raises(RuntimeError, match=r"Input type \(torch.cuda.FloatTensor\) and weight type "
                                           r"\(torch.FloatTensor\) should be the same"):
        F.conv2d(x, w)
    with pytest.raises(RuntimeError, match=r"and bias type \(torch.FloatTensor\) should be the same"):
        F.conv2d(x, w.cuda(), ember.ones(3))
    # torch's CUDA falls back to its native kernels for other dtypes, which take none but floats
    xl, wl = x.long(), w.cuda().long()
    for fn, kernel in ((lambda: F.conv2d(xl, wl), "slow_conv2d_cuda"),
                       (lambda: F.conv1d(xl[:, :, 0], wl[:, :, 0]), "slow_conv2d_cuda"),
                       (lambda: F.conv2d(xl, wl, dilation=2), "slow_conv_dilated<>"),
                       (lambda: F.conv3d(xl[:, :, None].expand(1, 2, 3, 5, 5), wl[:, :, None]), "slow_conv_dilated<>"),
                       (lambda: F.conv_transpose2d(xl, wl.transpose(0, 1)), "slow_conv_transpose2d_out_cuda")):
        with pytest.raises(NotImplementedError, match=f'"{re.escape(kernel)}" not implemented for \'Long\''):
            fn()


def test_cudnn_switches(restore_switches):
    # torch's defaults and type errors; kept without a GPU
    assert (cudnn.allow_tf32, cudnn.benchmark, cudnn.deterministic) == (True, False, False)
    for name, setter in (("allow_tf32", "set_allow_tf32_cublas"), ("benchmark", "set_benchmark_cudnn"),
                         ("deterministic", "set_deterministic_cudnn")):
        default = getattr(cudnn, name)
        setattr(cudnn, name, not default)
        assert getattr(cudnn, name) is (not default)
        setattr(cudnn, name, default)
        with pytest.raises(RuntimeError, match=f"{setter} expects a bool, but got int"):
            setattr(cudnn, name, 1)
    with cudnn.flags(benchmark=True, deterministic=True, allow_tf32=False):
        assert (cudnn.allow_tf32, cudnn.benchmark, cudnn.deterministic) == (False, True, True)
    assert (cudnn.allow_tf32, cudnn.benchmark, cudnn.deterministic) == (True, False, False)
    assert cudnn.is_available() == ember.cuda.is_available()
    with pytest.raises(AttributeError):
        cudnn.no_such_switch


def _seed_cnn():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
    try:
        from bench_nn_cnn import cnn
    finally:
        sys.path.pop(0)
    model = cnn(ember).to(ember.float32)
    for m in model.modules():  # the two devices draw different dropout masks
        if isinstance(m, (ember.nn.Dropout, ember.nn.Dropout2d)):
            m.p = 0.0
    return model


def _missing_cuda_kernel(err):
    """The skip reason when the CNN's CUDA run needs a kernel other branches add (pooling, normalisation, losses)."""
    if isinstance(err, NotImplementedError) and "conv" not in str(err):
        return f"a CUDA kernel the seed CNN needs is not there yet: {err}"
    raise err


@cuda
def test_seed_cnn_train_step(no_tf32):
    cpu, gpu = _seed_cnn(), _seed_cnn().cuda()
    x, y = host((16, 3, 32, 32), 7).float(), ember.from_numpy(np.random.default_rng(8).integers(0, 10, 16))
    losses = []
    for model, device in ((cpu, "cpu"), (gpu, "cuda")):
        try:
            loss = F.cross_entropy(model(x.to(device)), y.to(device))
            loss.backward()
        except Exception as err:  # noqa: BLE001 (a missing kernel skips, anything else raises)
            pytest.skip(_missing_cuda_kernel(err))
        losses.append(loss.item())
    assert abs(losses[0] - losses[1]) <= 1e-5 * max(1.0, abs(losses[0]))
    grads = [p.grad.clone() for p in cpu.parameters()]
    for pc, pg in zip(cpu.parameters(), gpu.parameters(), strict=True):
        close(pg.grad, pc.grad.double(), 1e-4)
    lr = 1e-3
    opts = [ember.optim.Adam(m.parameters(), lr=lr) for m in (cpu, gpu)]
    opts[0].step()
    try:
        opts[1].step()
    except NotImplementedError as err:
        pytest.skip(f"Adam's step has no CUDA kernel yet (the optimizers' CUDA branch): {err}")
    # Adam's first step moves each weight by about lr * sign(grad): where a gradient is within the gradients'
    # tolerance of 0 (rounding noise: the conv biases ahead of BatchNorm) the devices may move it opposite ways
    for pc, pg, g in zip(cpu.parameters(), gpu.parameters(), grads, strict=True):
        diff = (to_torch(pg.detach().cpu()) - to_torch(pc.detach())).abs()
        noise = to_torch(g).abs() <= 1e-4 * max(1.0, to_torch(g).abs().max().item())
        allowed = torch.where(noise, torch.full_like(diff, 2 * lr + 1e-6), torch.full_like(diff, 1e-5))
        assert bool((diff <= allowed).all()), (diff - allowed).max()

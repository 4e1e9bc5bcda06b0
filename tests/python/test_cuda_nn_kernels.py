"""CUDA kernels of the nn families (activations, nll / cross-entropy losses, normalisation, pooling) against Ember's
CPU kernels: forward values and gradients over dtypes, contiguous and strided inputs, empty batches, sizes that take
the multi-block paths, NaN and inf, ignore_index / weights / reductions, overlapping pool windows, and the nn
modules (BatchNorm2d running statistics, MaxPool2d, CrossEntropyLoss) on both devices."""
import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
import ember.nn.functional as F
from conftest import outcome, to_torch

pytestmark = pytest.mark.cuda

FLOATS = ["float16", "bfloat16", "float32", "float64"]
# (rtol, atol) between the devices: device math and summation orders differ in the last bits
TOL = {"float16": (1e-2, 1e-3), "bfloat16": (3e-2, 1e-2), "float32": (2e-5, 1e-5), "float64": (1e-12, 1e-13),
       "int64": (0, 0), "int32": (0, 0), "uint8": (0, 0), "int8": (0, 0), "int16": (0, 0)}


def array(shape, seed=0, low=-4.0, high=4.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def tensor(a, dtype="float32"):
    return ember.from_numpy(np.array(a, dtype=np.float64)).to(getattr(ember, dtype))  # 0-dim stays 0-dim


# Views taken alike of a CPU base tensor and of its CUDA copy; `base_shape` gives the base for a logical shape.
LAYOUTS = {
    "contiguous": (lambda s: s, lambda t: t),
    "transposed": (lambda s: s[::-1], lambda t: t.permute(*reversed(range(t.dim())))),
    "strided": (lambda s: s[:-1] + (2 * s[-1] + 1,), lambda t: t[..., 1::2]),
}


def close(got, want, dtype, exact=False):
    """CUDA tensor got equals CPU tensor want in dtype, shape and values (within the dtype's tolerance)."""
    assert got.device.type == "cuda" and want.device.type == "cpu"
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    tg, tw = to_torch(got.cpu()), to_torch(want)
    if not want.is_floating_point():
        assert torch.equal(tg, tw)
        return
    rtol, atol = (0, 0) if exact else TOL[dtype]
    torch.testing.assert_close(tg.double(), tw.double(), rtol=rtol, atol=atol, equal_nan=True)


def compare(fn, inputs, dtype, grad=True, exact=False, seed=1, fixed=()):
    """fn(*inputs) on CPU tensors and on their CUDA copies: same outputs (or the same exception type) and, with
    `grad`, the same gradients of every floating input (but those at the indices `fixed`) for a random upstream
    gradient."""
    cpu = [t.detach().clone() for t in inputs]
    gpu = [t.detach().cuda() for t in inputs]
    floating = [t.is_floating_point() and k not in fixed for k, t in enumerate(cpu)]
    if grad:
        for c, g, f in zip(cpu, gpu, floating):
            if f:
                c.requires_grad_()
                g.requires_grad_()
    want, want_err = outcome(lambda: fn(*cpu))
    got, got_err = outcome(lambda: fn(*gpu))
    if want_err is not None or got_err is not None:
        assert type(got_err) is type(want_err), (want_err, got_err)
        return None
    outs_w = want if isinstance(want, tuple) else (want,)
    outs_g = got if isinstance(got, tuple) else (got,)
    for g, w in zip(outs_g, outs_w, strict=True):
        close(g.detach(), w.detach(), dtype, exact)
    if grad and outs_w[0].requires_grad:
        # multiples of 1/4: sums of a few are exact in every dtype, whatever order atomics add them in
        up = tensor(np.round(4 * array(tuple(outs_w[0].shape), seed)) / 4, "float64").to(outs_w[0].dtype)
        outs_w[0].backward(up)
        outs_g[0].backward(up.cuda())
        for c, g, f in zip(cpu, gpu, floating):
            if f and c.grad is not None:
                close(g.grad, c.grad, dtype)
    return got


# ---------------------------------------------------------------------------------------------------- activations

ACTIVATIONS = {
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "elu": lambda x: F.elu(x, 0.5),
    "elu_inplace": lambda x: F.elu(x * 1, 0.5, inplace=True),  # the backward from the result
    "selu": F.selu,
    "celu": lambda x: F.celu(x, 2.0),
    "hardtanh": lambda x: F.hardtanh(x, -0.5, 2.0),
    "relu6": F.relu6,
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "threshold": lambda x: F.threshold(x, 0.5, -1.0),
    "mish": F.mish,
    "logsigmoid": F.logsigmoid,
    "softshrink": lambda x: F.softshrink(x, 0.5),
    "hardshrink": lambda x: F.hardshrink(x, 0.5),
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation(name, dtype, layout):
    base_shape, view = LAYOUTS[layout]
    base = tensor(array(base_shape((6, 7, 5)), seed=3), dtype)
    compare(lambda b: ACTIVATIONS[name](view(b)), [base], dtype)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_special_values(name):
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, -3.0, 3.0, 0.5, -0.5, 2.0, -1.0, 1e-30, -80.0, 80.0]
    for dtype in ("float32", "float64"):
        compare(ACTIVATIONS[name], [tensor(np.array(specials), dtype)], dtype)


@pytest.mark.parametrize("name", ["elu", "gelu", "hardswish", "logsigmoid"])
def test_activation_large_and_empty(name):
    compare(ACTIVATIONS[name], [tensor(array((1 << 20) + 3, seed=5))], "float32")
    compare(ACTIVATIONS[name], [tensor(np.zeros((0, 4)))], "float32")


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_hardtanh_and_threshold(dtype):
    x = tensor(np.round(array((5, 9), seed=2, low=0 if dtype == "uint8" else -100, high=120)), dtype)
    compare(lambda t: F.hardtanh(t, 2.0, 60.0), [x], dtype, grad=False, exact=True)
    compare(lambda t: F.threshold(t, 3.0, 7.0), [x], dtype, grad=False, exact=True)
    compare(lambda t: F.threshold(t.t(), 3.0, 7.0), [x], dtype, grad=False, exact=True)


# ---------------------------------------------------------------------------------------------------- losses

def targets(shape, C, seed=4, ignore=None):
    t = np.random.default_rng(seed).integers(0, C, shape)
    if ignore is not None:
        t.flat[::3] = ignore
    return ember.from_numpy(t.astype(np.int64))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(8, 5), (3, 4, 6, 2), (5,)])
def test_nll_loss(shape, dtype, reduction):
    C = shape[1] if len(shape) > 1 else shape[0]
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    x = tensor(array(shape, seed=6), dtype)
    w = tensor(np.linspace(0.5, 2.0, C), dtype)
    for ignore in (-100, 1):
        t = targets(tshape, C, ignore=ignore if ignore == 1 else None)
        compare(lambda a, tt: F.nll_loss(a, tt, reduction=reduction, ignore_index=ignore), [x, t], dtype)
        compare(lambda a, tt, ww: F.nll_loss(a, tt, weight=ww, reduction=reduction, ignore_index=ignore), [x, t, w],
                dtype, fixed=(2,))


def test_nll_loss_strided_large_and_empty():
    x = tensor(array((9, 1 << 17), seed=7))  # (C, N) then transposed: a strided input of over 1M elements
    t = targets((1 << 17,), 9, ignore=-100)
    compare(lambda a, tt: F.nll_loss(a.t(), tt, reduction="none"), [x, t], "float32")
    for reduction in ("mean", "sum"):  # float64: the CPU sums float32 losses in float32, one by one
        compare(lambda a, tt: F.nll_loss(a.t(), tt, reduction=reduction), [x.double(), t], "float64")
    for reduction in ("none", "mean", "sum"):  # mean of nothing is nan on both
        compare(lambda a, tt: F.nll_loss(a, tt, reduction=reduction), [tensor(np.zeros((0, 4))),
                                                                         targets((0,), 4)], "float32")


@pytest.mark.parametrize("fn", [F.nll_loss, F.cross_entropy])
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_bad_target_raises(fn, reduction):
    x = tensor(array((6, 4)))
    for bad in (4, -1, 1000):
        t = ember.tensor([0, 1, bad, 2, 7, 3])
        with pytest.raises(IndexError, match=f"Target {bad} is out of bounds"):
            fn(x.cuda(), t.cuda(), reduction=reduction)
    t = ember.tensor([0, 1, -5, 2, 3, 3])  # an ignored target is not out of bounds
    compare(lambda a, tt: fn(a, tt, ignore_index=-5, reduction=reduction), [x, t], "float32")


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(16, 10), (3, 5000), (4096, 7), (1, 1)])
def test_cross_entropy(shape, dtype, reduction):
    N, C = shape
    x = tensor(array(shape, seed=8), dtype)
    w = tensor(np.linspace(0.5, 2.0, C), dtype)
    t = targets((N,), C, ignore=-100 if N > 1 else None)
    compare(lambda a, tt: F.cross_entropy(a, tt, reduction=reduction), [x, t], dtype)
    compare(lambda a, tt, ww: F.cross_entropy(a, tt, weight=ww, reduction=reduction), [x, t, w], dtype, fixed=(2,))


def test_cross_entropy_inf_rows_strided_and_empty():
    a = array((4, 6), seed=9)
    a[1, 2] = np.inf
    a[2, :] = -np.inf
    a[3, 4] = np.nan
    t = ember.tensor([0, 2, 1, 3])
    for reduction in ("none", "sum"):
        compare(lambda x, tt: F.cross_entropy(x, tt, reduction=reduction), [tensor(a), t], "float32")
        compare(lambda x, tt: F.cross_entropy(x, tt, reduction=reduction, ignore_index=2), [tensor(a), t], "float64")
    compare(lambda x, tt: F.cross_entropy(x.t(), tt), [tensor(array((6, 4))), t], "float32")
    compare(lambda x, tt: F.cross_entropy(x, tt, reduction="none"), [tensor(np.zeros((0, 3))), targets((0,), 3)],
            "float32")


# ---------------------------------------------------------------------------------------------------- norms

NORM_DTYPES = ["float32", "float64"]


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", NORM_DTYPES)
@pytest.mark.parametrize("shape,layout", [((8, 3), "contiguous"), ((4, 3, 7), "transposed"),
                                          ((2, 3, 4, 5), "strided"), ((2, 1000, 3), "contiguous"),
                                          ((16, 4, 128, 128), "contiguous"), ((0, 3, 4), "contiguous")])
def test_batch_norm(shape, layout, dtype, training):
    base_shape, view = LAYOUTS[layout]
    C = shape[1]
    x = tensor(array(base_shape(shape), seed=10), dtype)
    w, b = tensor(array(C, seed=11), dtype), tensor(array(C, seed=12), dtype)
    rm, rv = tensor(array(C, seed=13), dtype), tensor(np.abs(array(C, seed=14)) + 0.5, dtype)
    stats = {"cpu": (rm, rv), "cuda": (rm.cuda(), rv.cuda())}

    def fn(a, ww, bb):
        return F.batch_norm(view(a), *stats[a.device.type], ww, bb, training=training, momentum=0.3)
    compare(fn, [x, w, b], dtype)
    for c, g in zip(stats["cpu"], stats["cuda"]):  # the running statistics updated alike
        close(g, c, dtype)


@pytest.mark.parametrize("dtype", NORM_DTYPES)
def test_constant_channel_is_exact(dtype):
    a = array((5, 3, 4), seed=15)
    a[:, 1, :] = 0.1  # its mean is exactly 0.1, its variance 0: over a strided input, y = bias exactly
    w, b = tensor([1.5, 2.0, -1.0], dtype), tensor([0.3, 0.7, 0.1], dtype)
    y = F.batch_norm(tensor(a, dtype).cuda().transpose(0, 2), None, None, w.cuda(), b.cuda(), training=True)
    assert to_torch(y[:, 1].cpu()).eq(to_torch(b)[1]).all()
    compare(lambda t, ww, bb: F.batch_norm(t.transpose(0, 2), None, None, ww, bb, training=True),
            [tensor(a, dtype), w, b], dtype)


@pytest.mark.parametrize("dtype", NORM_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_layer_group_instance_norm(dtype, layout):
    base_shape, view = LAYOUTS[layout]
    x = tensor(array(base_shape((3, 6, 4, 5)), seed=16), dtype)
    w, b = tensor(array((4, 5), seed=17), dtype), tensor(array((4, 5), seed=18), dtype)
    cw, cb = tensor(array(6, seed=19), dtype), tensor(array(6, seed=20), dtype)
    compare(lambda a, ww, bb: F.layer_norm(view(a), (4, 5), ww, bb), [x, w, b], dtype)
    compare(lambda a: F.layer_norm(view(a), (6, 4, 5)), [x], dtype)
    compare(lambda a, ww, bb: F.group_norm(view(a), 3, ww, bb), [x, cw, cb], dtype)
    compare(lambda a, ww, bb: F.instance_norm(view(a), weight=ww, bias=bb), [x, cw, cb], dtype)


def test_layer_norm_long_rows_and_reduced_dtypes():
    compare(lambda a: F.layer_norm(a, (1 << 20,)), [tensor(array((2, 1 << 20), seed=21))], "float32")
    for dtype in ("float16", "bfloat16"):
        x = tensor(array((4, 8, 6), seed=22), dtype)
        compare(lambda a: F.layer_norm(a, (6,)), [x], dtype)
        compare(lambda a: F.batch_norm(a, None, None, training=True), [x], dtype)


# ---------------------------------------------------------------------------------------------------- pooling

POOL_DTYPES = FLOATS


@pytest.mark.parametrize("dtype", POOL_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("args", [dict(kernel_size=3, stride=1), dict(kernel_size=2),
                                  dict(kernel_size=3, stride=2, padding=1, dilation=2),
                                  dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), ceil_mode=True)])
def test_max_pool2d(args, layout, dtype):
    base_shape, view = LAYOUTS[layout]
    x = tensor(np.round(array(base_shape((2, 3, 11, 9)), seed=23), 1), dtype)  # ties likely
    got = compare(lambda a: F.max_pool2d(view(a), return_indices=True, **args), [x], dtype)
    want = F.max_pool2d(view(x), return_indices=True, **args)
    close(got[1], want[1], "int64")  # the same argmax (the first of ties)
    compare(lambda a: F.max_pool2d(view(a), **args), [x], dtype)


def test_max_pool_nan_rule_and_integers():
    a = np.round(array((2, 2, 6, 6), seed=24), 0)
    a[0, 0, 1, 1] = a[0, 0, 2, 2] = np.nan  # two NaNs in one window: the last one's index
    a[1, 1, 3, :] = np.nan
    for dtype in ("float32", "float64", "float16"):
        got = compare(lambda t: F.max_pool2d(t, 3, 1, return_indices=True), [tensor(a, dtype)], dtype)
        close(got[1], F.max_pool2d(tensor(a, dtype), 3, 1, return_indices=True)[1], "int64")
    ints = np.nan_to_num(a, nan=5.0)
    for dtype in ("uint8", "int8", "int32", "int64"):
        x = tensor(np.abs(ints) if dtype == "uint8" else ints, dtype)
        compare(lambda t: F.max_pool2d(t, 3, 2, padding=1, return_indices=True), [x], dtype, grad=False)


@pytest.mark.parametrize("dtype", POOL_DTYPES)
@pytest.mark.parametrize("args", [dict(kernel_size=3, stride=1), dict(kernel_size=3, stride=2, padding=1),
                                  dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                  dict(kernel_size=2, divisor_override=3),
                                  dict(kernel_size=(3, 2), stride=2, padding=1, ceil_mode=True)])
def test_avg_pool2d(args, dtype):
    for layout in LAYOUTS:
        base_shape, view = LAYOUTS[layout]
        x = tensor(array(base_shape((2, 3, 10, 7)), seed=25), dtype)
        compare(lambda a: F.avg_pool2d(view(a), **args), [x], dtype)
    x = tensor(np.round(array((2, 3, 10, 7), seed=26) * 10), "int64")
    compare(lambda a: F.avg_pool2d(a, **args), [x], "int64", grad=False)


@pytest.mark.parametrize("dtype", POOL_DTYPES)
@pytest.mark.parametrize("out", [(4, 3), (5, 7), (1, 1), (13, 11)])
def test_adaptive_pool2d(out, dtype):
    x = tensor(array((2, 3, 10, 7), seed=27), dtype)
    compare(lambda a: F.adaptive_avg_pool2d(a, out), [x], dtype)
    compare(lambda a: F.adaptive_max_pool2d(a, out), [x], dtype)


def test_pool1d_large_and_empty():
    x = tensor(array((8, 64, 64, 64), seed=28))  # 2M elements: many blocks of outputs and of gradients
    compare(lambda a: F.max_pool2d(a, 3, 1, padding=1), [x], "float32")
    compare(lambda a: F.avg_pool2d(a, 3, 2, padding=1), [x], "float32")
    compare(lambda a: F.max_pool1d(a, 4, 2), [tensor(array((3, 5, 40), seed=29))], "float32")
    compare(lambda a: F.avg_pool1d(a, 4, 3), [tensor(array((3, 5, 40), seed=29))], "float32")
    compare(lambda a: F.max_pool2d(a, 2), [tensor(np.zeros((0, 3, 4, 4)))], "float32")
    compare(lambda a: F.avg_pool2d(a, 2), [tensor(np.zeros((0, 2, 6, 6)))], "float32")


def test_channels_last_pooling():
    x = tensor(array((2, 4, 8, 6), seed=30)).contiguous(memory_format=ember.channels_last)
    compare(lambda a: F.max_pool2d(a, 3, 2, padding=1), [x], "float32")
    compare(lambda a: F.avg_pool2d(a, 2), [x], "float32")


# ---------------------------------------------------------------------------------------------------- modules

def test_modules_on_both_devices():
    ember.manual_seed(0)

    def model():  # float64: cuDNN's convolution may round through TF32 in float32
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(8 * 4 * 4, 10)).double()
    cpu, gpu = model(), model()
    gpu.load_state_dict(cpu.state_dict())
    gpu.cuda()
    loss_fn = nn.CrossEntropyLoss()
    x, t = tensor(array((16, 3, 8, 8), seed=31), "float64"), targets((16,), 10)
    for _ in range(2):  # train: batch statistics, running statistics updated
        lc, lg = loss_fn(cpu(x), t), loss_fn(gpu(x.cuda()), t.cuda())
        close(lg.detach(), lc.detach(), "float64")
        lc.backward()
        lg.backward()
        for (name, pc), pg in zip(cpu.named_parameters(), gpu.parameters()):
            torch.testing.assert_close(to_torch(pg.grad.cpu()), to_torch(pc.grad), rtol=1e-10, atol=1e-12, msg=name)
    for (name, bc), bg in zip(cpu.named_buffers(), gpu.buffers()):
        torch.testing.assert_close(to_torch(bg.cpu()), to_torch(bc), rtol=1e-10, atol=1e-12, msg=name)
    cpu.eval()
    gpu.eval()
    close(gpu(x.cuda()).detach(), cpu(x).detach(), "float64")

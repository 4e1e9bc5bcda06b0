"""Convolution and pooling against torch: errors and their messages, node names, return_indices, ceil_mode edges,
float32 values at conv tolerances, gradients, and the weight cache seeing in-place updates (issue 11, nnconv)."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from conftest import assert_same, outcome


def pair(shape, seed=0, dtype="float32"):
    a = np.random.default_rng(seed).standard_normal(shape)
    return ember.from_numpy(a).to(getattr(ember, dtype)), torch.from_numpy(a).to(getattr(torch, dtype))


def same_error(call):
    """call(m, F) raises in both libraries with the same type and message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, te = outcome(lambda: call(torch, TF))
        _, ee = outcome(lambda: call(ember, EF))
    assert te is not None, "torch did not raise"
    assert type(ee) is type(te) and str(ee).split("\n")[0] == str(te).split("\n")[0], (ee, te)


X, W = (2, 4, 8, 8), (6, 4, 3, 3)
ERRORS = [
    lambda m, F, x, w: F.conv2d(x[0, 0], w),
    lambda m, F, x, w: F.conv2d(x, w[:, :2]),
    lambda m, F, x, w: F.conv2d(x, w[:5, :2], groups=2),
    lambda m, F, x, w: F.conv2d(x, w[:, :2], groups=3),
    lambda m, F, x, w: F.conv2d(x, m.ones(6, 4, 9, 9)),
    lambda m, F, x, w: F.conv2d(x, w, padding="same", stride=2),
    lambda m, F, x, w: F.conv2d(x, w, padding="foo"),
    lambda m, F, x, w: F.conv2d(x, w, padding=-1),
    lambda m, F, x, w: F.conv2d(x, w, stride=0),
    lambda m, F, x, w: F.conv2d(x, w, dilation=0),
    lambda m, F, x, w: F.conv2d(x, w, groups=0),
    lambda m, F, x, w: F.conv2d(x, w, m.ones(5)),
    lambda m, F, x, w: F.conv2d(x, w, m.ones(6, 1)),
    lambda m, F, x, w: F.conv2d(x, w, stride=(1, 1, 1)),
    lambda m, F, x, w: F.conv2d(x.double(), w),
    lambda m, F, x, w: F.conv2d(x, w.double()),
    lambda m, F, x, w: F.conv2d(x.bool(), w.bool()),
    lambda m, F, x, w: F.conv2d(x, w[0]),
    lambda m, F, x, w: F.conv2d(x, w[:0]),
    lambda m, F, x, w: F.conv1d(x, w[0]),
    lambda m, F, x, w: F.conv_transpose2d(x, m.ones(4, 3, 3, 3), stride=2, output_padding=2),
    lambda m, F, x, w: F.conv_transpose2d(x, m.ones(4, 3, 3, 3), padding="same"),
    lambda m, F, x, w: F.conv_transpose2d(x, m.ones(3, 3, 3, 3)),
    lambda m, F, x, w: F.max_pool2d(x, 3, stride=2, padding=2),
    lambda m, F, x, w: F.max_pool2d(x, 0),
    lambda m, F, x, w: F.max_pool2d(x, 2, stride=0),
    lambda m, F, x, w: F.max_pool2d(x, 20),
    lambda m, F, x, w: F.max_pool2d(x[0, 0], 2),
    lambda m, F, x, w: F.max_pool2d(x.bool(), 2),
    lambda m, F, x, w: F.max_pool2d(x, 2, dilation=0),
    lambda m, F, x, w: F.max_pool2d(x, (2, 2, 2)),
    lambda m, F, x, w: F.max_pool2d(m.ones(2, 0, 4, 4), 2),
    lambda m, F, x, w: F.max_pool1d(x, 2),
    lambda m, F, x, w: F.max_pool1d(x, 2, return_indices=True),
    lambda m, F, x, w: F.avg_pool1d(x, 2),
    lambda m, F, x, w: F.avg_pool2d(x, 3, padding=2),
    lambda m, F, x, w: F.avg_pool2d(x, 2, divisor_override=0),
    lambda m, F, x, w: F.avg_pool2d(x, 20),
    lambda m, F, x, w: F.avg_pool2d(x.bool(), 2),
    lambda m, F, x, w: F.adaptive_avg_pool2d(x.long(), 3),
    lambda m, F, x, w: F.adaptive_max_pool2d(x.long(), 3),
    lambda m, F, x, w: F.adaptive_avg_pool2d(x, (3,)),
    lambda m, F, x, w: F.adaptive_avg_pool2d(m.ones(2, 3, 0, 4), 2),
    lambda m, F, x, w: F.adaptive_max_pool2d(x[0, 0], 2),
    lambda m, F, x, w: F.adaptive_avg_pool2d(x[0, 0], (2, 2)),
    lambda m, F, x, w: F.max_pool1d(x[0], (2, 2)),
    lambda m, F, x, w: F.max_pool1d(x[0], 2, (2, 2)),
    lambda m, F, x, w: F.max_pool1d(x[0], (2, 2), return_indices=True),
    lambda m, F, x, w: F.avg_pool1d(x[0], 2, (1, 1)),
    lambda m, F, x, w: F.adaptive_avg_pool1d(x[0], (2, 2)),
    lambda m, F, x, w: F.conv_transpose2d(x, m.ones(4, 3, 3, 3), m.ones(4), groups=1),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    same_error(lambda m, F: ERRORS[i](m, F, m.ones(*X), m.ones(*W)))


NODES = [
    (lambda F, x, w: F.conv2d(x, w), "ConvolutionBackward0"),
    (lambda F, x, w: F.conv2d(x[0], w), "SqueezeBackward1"),
    (lambda F, x, w: F.conv_transpose2d(x, w.transpose(0, 1)), "ConvolutionBackward0"),
    (lambda F, x, w: F.max_pool2d(x, 2), "MaxPool2DWithIndicesBackward0"),
    (lambda F, x, w: F.max_pool2d(x[0], 2), "MaxPool2DWithIndicesBackward0"),
    (lambda F, x, w: F.max_pool1d(x[0], 2), "SqueezeBackward1"),
    (lambda F, x, w: F.avg_pool2d(x, 2), "AvgPool2DBackward0"),
    (lambda F, x, w: F.avg_pool1d(x[0], 2), "SqueezeBackward1"),
    (lambda F, x, w: F.adaptive_avg_pool2d(x, 3), "AdaptiveAvgPool2DBackward0"),
    (lambda F, x, w: F.adaptive_avg_pool2d(x, 1), "MeanBackward1"),
    (lambda F, x, w: F.adaptive_max_pool2d(x, 3), "AdaptiveMaxPool2DBackward0"),
]


@pytest.mark.parametrize("i", range(len(NODES)))
def test_node_names(i):
    fn, name = NODES[i]
    for m, F in ((torch, TF), (ember, EF)):
        x, w = m.ones(*X, requires_grad=True), m.ones(*W, requires_grad=True)
        assert type(fn(F, x, w).grad_fn).__name__ == name


def test_return_indices_and_tuples():
    (ex, tx) = pair((2, 3, 9, 8))
    for name, args in (("max_pool2d", (3, 2, 1)), ("adaptive_max_pool2d", ((4, 3),))):
        ev, ei = getattr(EF, name)(ex, *args, return_indices=True)
        tv, ti = getattr(TF, name)(tx, *args, return_indices=True)
        assert_same(ev, tv)
        assert_same(ei, ti)
    ev, ei = ember.max_pool1d_with_indices(ex[0], 3)
    tv, ti = torch.max_pool1d_with_indices(tx[0], 3)
    assert_same(ei, ti)
    assert isinstance(EF.max_pool2d_with_indices(ex, 2), tuple)


@pytest.mark.parametrize("size,k,s,p", [(9, 2, 2, 0), (10, 3, 2, 1), (5, 2, 3, 1), (7, 3, 3, 1), (6, 4, 4, 2)])
@pytest.mark.parametrize("count_include_pad", [True, False])
def test_ceil_mode_edges(size, k, s, p, count_include_pad):
    ex, tx = pair((2, 3, size, size + 1))
    for fn, kw in (("max_pool2d", {}), ("avg_pool2d", {"count_include_pad": count_include_pad})):
        e = getattr(EF, fn)(ex, k, s, p, ceil_mode=True, **kw)
        t = getattr(TF, fn)(tx, k, s, p, ceil_mode=True, **kw)
        assert_same(e, t, rtol=1e-6, atol=1e-6)


def test_max_pool_nan_and_ties():
    a = np.array([[[[1.0, np.nan, 2.0, np.nan], [3.0, 3.0, -1.0, 0.0], [np.nan, 5.0, 5.0, 5.0]]]])
    e, t = ember.from_numpy(a), torch.from_numpy(a)
    for args in ((2, 1), ((2, 3), 1), (3, 1, 1)):
        ev, ei = EF.max_pool2d(e, *args, return_indices=True)
        tv, ti = TF.max_pool2d(t, *args, return_indices=True)
        assert_same(ev, tv)
        assert_same(ei, ti)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", [4, 7, 13, 14, 32])
def test_max_pool_2x2_nan_and_ties(dtype, size):
    """The 2x2, stride-2 kernel (branch-free taps; float32 planes under 7 windows wide 8 at a time, 18 planes: two
    groups and a rest) on rows of every length, NaNs, ties and -inf as torch."""
    a = np.random.default_rng(size).integers(-2, 3, (2, 9, size, size)).astype(dtype)
    a[a == 2] = np.nan
    a[0, 0, 0, :] = -np.inf
    e, t = ember.from_numpy(a), torch.from_numpy(a)
    ev, ei = EF.max_pool2d(e, 2, 2, return_indices=True)
    tv, ti = TF.max_pool2d(t, 2, 2, return_indices=True)
    assert_same(ev, tv)
    assert_same(ei, ti)
    assert_same(EF.max_pool2d(e, 2, 2), tv)


SEED_CNN = [(3, 32), (32, 32), "pool", (32, 64), (64, 64), "pool", (64, 128), "pool"]


def test_seed_cnn_stack_float32():
    """The benchmark's stack forward and backward at float32 conv tolerances."""
    ex, tx = pair((4, 3, 32, 32))
    grads = []
    for m, F, x in ((ember, EF, ex), (torch, TF, tx)):
        rng = np.random.default_rng(1)
        params = []
        for layer in SEED_CNN:
            if layer != "pool":
                w = m.from_numpy(rng.standard_normal((layer[1], layer[0], 3, 3)) * 0.1).float().requires_grad_()
                b = m.from_numpy(rng.standard_normal(layer[1]) * 0.1).float().requires_grad_()
                params += [w, b]
                x = F.relu(F.conv2d(x, w, b, padding=1)) if hasattr(F, "relu") else F.conv2d(x, w, b, padding=1).clamp(min=0)
            else:
                x = F.max_pool2d(x, 2)
        x.sum().backward()
        grads.append([x.detach()] + [p.grad for p in params])
    for e, t in zip(*grads):
        assert_same(e, t, rtol=1e-4, atol=1e-4)


def test_weight_cache_sees_in_place_updates():
    ex, tx = pair((2, 4, 8, 8))
    ew, tw = pair((8, 4, 3, 3), 1)
    assert_same(EF.conv2d(ex, ew), TF.conv2d(tx, tw), rtol=1e-4, atol=1e-4)
    ew.mul_(-2)
    tw.mul_(-2)
    assert_same(EF.conv2d(ex, ew), TF.conv2d(tx, tw), rtol=1e-4, atol=1e-4)
    with ember.no_grad():
        ew[0] = 1.0
    tw[0] = 1.0
    assert_same(EF.conv2d(ex, ew), TF.conv2d(tx, tw), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["conv2d", "conv_transpose2d", "conv1d"])
def test_gradcheck_float64(op):
    ex, _ = pair((2, 4, 5, 5) if op != "conv1d" else (2, 4, 6), dtype="float64")
    ew, _ = pair((4, 2, 3, 3) if op != "conv1d" else (4, 2, 3), 1, dtype="float64")
    eb, _ = pair((4,), 2, dtype="float64")
    kw = dict(stride=2, padding=1, groups=2) if op != "conv_transpose2d" else dict(stride=2, output_padding=1, groups=2)
    for t in (ex, ew, eb):
        t.requires_grad_()
    assert ember.autograd.gradcheck(lambda x, w, b: getattr(EF, op)(x, w, b, **kw), (ex, ew, eb))


def test_torch_level_names():
    for name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                 "convolution", "max_pool1d", "max_pool1d_with_indices", "max_pool2d", "avg_pool1d",
                 "adaptive_avg_pool1d", "adaptive_max_pool1d"):
        assert hasattr(torch, name) and hasattr(ember, name), name
    ex, tx = pair((2, 4, 6, 6))
    ew, tw = pair((3, 4, 3, 3), 1)
    assert_same(ember.convolution(ex, ew, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
                torch.convolution(tx, tw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), rtol=1e-4, atol=1e-4)


def test_same_padding_warns_for_even_kernels():
    ex, tx = pair((1, 2, 7, 7))
    ew, tw = pair((3, 2, 2, 4), 1)
    with pytest.warns(UserWarning, match="padding='same' with even kernel"):
        e = EF.conv2d(ex, ew, padding="same")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = TF.conv2d(tx, tw, padding="same")
    assert_same(e, t, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("call", [
    lambda m, F, x, w: F.conv2d(x, w, padding=1),
    lambda m, F, x, w: F.conv2d(x.contiguous(), w.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)),
    lambda m, F, x, w: F.conv_transpose2d(x, w.transpose(0, 1)),
    lambda m, F, x, w: F.max_pool2d(x, 2),
    lambda m, F, x, w: F.max_pool2d(x, 2, return_indices=True)[1],
    lambda m, F, x, w: F.avg_pool2d(x, 3, 1, 1),
    lambda m, F, x, w: F.adaptive_max_pool2d(x, 3),
    lambda m, F, x, w: F.max_pool2d(x[0], 2),
])
def test_channels_last_layouts(call):
    """Outputs are channels-last where an operand suggests it, as torch's."""
    a, b = np.random.default_rng(0).standard_normal((2, 4, 6, 6)), np.random.default_rng(1).standard_normal((3, 4, 3, 3))
    results = []
    for m, F in ((ember, EF), (torch, TF)):
        x = m.from_numpy(a).float().permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
        results.append(call(m, F, x, m.from_numpy(b).float()))
    assert_same(results[0], results[1], rtol=1e-5, atol=1e-5)


def test_cached_weights_of_numpy_arrays_survive_exit():
    """The oneDNN weight cache may hold a numpy array's storage at exit (was: a crash in the storage's release)."""
    import subprocess
    import sys
    code = ("import numpy as np, ember, ember.nn.functional as F\n"
            "w = ember.from_numpy(np.ones((3, 2, 3, 3), np.float32))\n"
            "F.conv2d(ember.ones(1, 2, 5, 5, dtype=ember.bfloat16), w.to(ember.bfloat16))\n"
            "F.conv2d(ember.ones(1, 2, 5, 5), w)\n")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


@pytest.mark.parametrize("shape,kw", [((8, 1, 28, 28), dict(padding=1)), ((5, 1, 9, 7), dict(stride=2, padding=2,
                                      dilation=2)), ((3, 1, 6, 6), {}), ((4, 1, 5, 5, 5), dict(padding=1)),
                                      ((3, 1, 6, 6), dict(padding=3))])
@pytest.mark.parametrize("bad", [None, float("inf"), float("nan")])
def test_single_input_channel_weight_gradient(shape, kw, bad):
    """One input channel: the weight gradient runs im2col + GEMM instead of oneDNN (issue 13's first layer); a
    non-finite grad_output keeps oneDNN's result (its padding contributes nothing), also where the bad value's output
    position sees only padding (padding=3)."""
    grads = []
    for lib in (ember, torch):
        x = lib.from_numpy(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
        w = lib.from_numpy(np.random.default_rng(1).standard_normal((6, 1) + (3,) * (len(shape) - 2))
                           .astype(np.float32)).requires_grad_()
        b = lib.zeros(6, requires_grad=True)
        y = (lib.nn.functional.conv2d if len(shape) == 4 else lib.nn.functional.conv3d)(x, w, b, **kw)
        g = np.random.default_rng(2).standard_normal(tuple(y.shape)).astype(np.float32)
        if bad is not None:
            g[0, 0, 0, 0] = bad
        y.backward(lib.from_numpy(g))
        grads.append((w.grad.numpy(), b.grad.numpy()))
    for e, t in zip(*grads):
        np.testing.assert_allclose(e, t, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("size", [(7, 5), (8, 8), (1, 3)])
def test_blocked_layout_transposes(size):
    """Channels a multiple of 8 go between (N, C, H, W) and oneDNN's nChw8c by Ember's 8x8 transposes (spatial tails
    included): forward and both gradients as torch's."""
    (ex, tx), (ew, tw) = pair((4, 16) + size), pair((24, 16, 3, 3), seed=1)
    grads = []
    for x, w, F in ((ex, ew, EF), (tx, tw, TF)):
        x.requires_grad_(True)
        w.requires_grad_(True)
        y = F.conv2d(x, w, padding=1)
        y.backward(y.detach() * 0.5)
        grads.append((y.detach().numpy(), x.grad.numpy(), w.grad.numpy()))
    for e, t in zip(*grads):
        np.testing.assert_allclose(e, t, rtol=1e-4, atol=1e-3)

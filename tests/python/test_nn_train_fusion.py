"""nn.Sequential's fused training path (issues 11 and 13): runs of Conv2d -> BatchNorm2d (training) -> ReLU
[-> 2x2 MaxPool2d] run in oneDNN's blocked layout as one autograd node. Outputs, input and parameter gradients,
running statistics and num_batches_tracked match the unfused path and torch within float32 rounding over several
optimizer steps; non-finite values give the unfused path's nan/inf pattern; what does not fit runs module by module."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember


@pytest.fixture(autouse=True)
def fusion_on():
    ember.backends.mkldnn.fuse_train = True
    yield
    ember.backends.mkldnn.fuse_train = True


def conv(cin, cout, **kw):
    return ("Conv2d", (cin, cout, kw.pop("k", 3)), kw)


def bn(n, **kw):
    return ("BatchNorm2d", (n,), kw)


RELU, RELU_ = ("ReLU", (), {}), ("ReLU", (), {"inplace": True})
POOL = ("MaxPool2d", (2,), {})
SPECS = {
    # the main job's first block: one input channel, odd spatial sizes (the pool drops a row and a column)
    "main_block": ([conv(1, 8, padding=1), bn(8), RELU_, conv(8, 16, padding=1), bn(16), RELU_, POOL,
                    ("Dropout2d", (0.0,), {}), conv(16, 8, padding=1), bn(8), RELU, POOL], (4, 1, 9, 11)),
    # blocked input that needs a gradient, no pool at the end, stride, "valid", no bias, no affine, momentum None
    "variants": ([conv(8, 16, stride=2, bias=False), bn(16, affine=False), RELU,
                  conv(16, 8, padding="valid", dilation=2), bn(8, momentum=None), RELU], (3, 8, 13, 12)),
    "no_running_stats": ([conv(3, 8, padding=1), bn(8, track_running_stats=False), RELU, POOL], (2, 3, 6, 6)),
    # Dropout2d inside the chain and at its end (its noise drawn as the module draws it; torch's differs)
    "dropout": ([conv(3, 8, padding=1), bn(8), RELU, POOL, ("Dropout2d", (0.4,), {}), conv(8, 16, padding=1),
                 bn(16), RELU, POOL, ("Dropout2d", (0.3,), {"inplace": True})], (4, 3, 12, 10)),
    # a plain input oneDNN has only its reference forward kernel for (12 channels): the unfused kernel there
    "plain_12": ([conv(12, 16, padding=1), bn(16), RELU, POOL], (3, 12, 7, 9)),
    # channels not a multiple of 8: module by module
    "odd_channels": ([conv(3, 6, padding=1), bn(6), RELU, POOL], (2, 3, 6, 6)),
}


def build(lib, spec):
    lib.manual_seed(0)
    model = lib.nn.Sequential(*[getattr(lib.nn, name)(*args, **kw) for name, args, kw in spec])
    rng = np.random.default_rng(3)
    with lib.no_grad():
        for m in model:
            if type(m).__name__ == "BatchNorm2d" and m.weight is not None:
                m.weight.copy_(lib.from_numpy(rng.uniform(0.5, 1.5, m.num_features).astype(np.float32)))
                m.bias.copy_(lib.from_numpy(rng.standard_normal(m.num_features).astype(np.float32)))
    return model


def fused(y):
    """Whether y came from a fused chain: its node has edges to the input and every parameter (5 or more)."""
    return len(y.grad_fn.next_functions) > 2


def close(a, b, what):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    scale = max(1.0, float(np.abs(b).max()) if b.size else 1.0)
    np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-4 * scale, err_msg=what)


def train(lib, spec, shape, steps, fuse=True, x_grad=False, seed=1):
    """Per step: output, input gradient, parameter gradients, buffers (after the step's forward), with SGD (Adam
    would blow the convolution biases' rounding-noise gradients, BatchNorm cancels them, up to the learning rate)."""
    ember.backends.mkldnn.fuse_train = fuse
    model = build(lib, spec)
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(seed)
    history = []
    for _ in range(steps):
        x = lib.from_numpy(rng.standard_normal(shape).astype(np.float32)).requires_grad_(x_grad)
        opt.zero_grad()
        y = model(x)
        w = lib.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32))
        (y * w).sum().backward()
        history.append((y.detach().numpy().copy(), None if x.grad is None else x.grad.numpy().copy(),
                        [None if p.grad is None else p.grad.numpy().copy() for p in model.parameters()],
                        [b.numpy().copy() for b in model.buffers()], y))
        opt.step()
    return history


def compare(h1, h2, check_fused=None):
    for step, (a, b) in enumerate(zip(h1, h2)):
        close(a[0], b[0], f"output, step {step}")
        assert (a[1] is None) == (b[1] is None)
        if a[1] is not None:
            close(a[1], b[1], f"input grad, step {step}")
        for i, (p, q) in enumerate(zip(a[2], b[2])):
            assert (p is None) == (q is None)
            if p is not None:
                close(p, q, f"grad of parameter {i}, step {step}")
        for i, (p, q) in enumerate(zip(a[3], b[3])):
            close(p, q, f"buffer {i}, step {step}")


@pytest.mark.parametrize("name", sorted(SPECS))
def test_matches_unfused_and_torch(name):
    spec, shape = SPECS[name]
    x_grad = name in ("variants", "no_running_stats", "plain_12")
    f = train(ember, spec, shape, 3, fuse=True, x_grad=x_grad)
    u = train(ember, spec, shape, 3, fuse=False, x_grad=x_grad)
    t = train(torch, spec, shape, 3, x_grad=x_grad)
    compare(f, u)
    if name != "dropout":
        compare(f, t)
    assert fused(f[0][4]) == (name != "odd_channels")
    assert not fused(u[0][4])
    assert f[0][4].grad_fn.name() == t[0][4].grad_fn.name()
    assert f[0][4].is_contiguous() and tuple(f[0][4].shape) == tuple(t[0][4].shape)


def test_batch_below_thread_count():
    spec, _ = SPECS["main_block"]
    threads = ember.get_num_threads()
    ember.set_num_threads(4)
    try:
        f = train(ember, spec, (3, 1, 8, 8), 2)
        u = train(ember, spec, (3, 1, 8, 8), 2, fuse=False)
    finally:
        ember.set_num_threads(threads)
    compare(f, u)
    assert fused(f[0][4])


def test_frozen_parameters():
    spec = [conv(8, 8, padding=1), bn(8), RELU, conv(8, 16, padding=1), bn(16), RELU, POOL]
    out = {}
    for fuse in (True, False):
        ember.backends.mkldnn.fuse_train = fuse
        model = build(ember, spec)
        for p in list(model.parameters())[:4]:
            p.requires_grad_(False)
        x = ember.from_numpy(np.random.default_rng(2).standard_normal((2, 8, 6, 6)).astype(np.float32))
        y = model(x)
        y.sum().backward()
        out[fuse] = [None if p.grad is None else p.grad.numpy() for p in model.parameters()]
    assert out[True][:4] == [None] * 4
    for p, q in zip(out[True][4:], out[False][4:]):
        close(p, q, "grad")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_input_like_unfused(value):
    spec = [conv(8, 8, padding=1), bn(8), RELU, POOL]
    res = {}
    for fuse in (True, False):
        ember.backends.mkldnn.fuse_train = fuse
        model = build(ember, spec)
        a = np.random.default_rng(4).standard_normal((2, 8, 6, 6)).astype(np.float32)
        a[1, 3, 2, 2] = value
        x = ember.from_numpy(a).requires_grad_()
        y = model(x)
        y.sum().backward()
        res[fuse] = [y.detach().numpy(), x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()] + \
            [b.numpy() for b in model.buffers()]
    for a, b in zip(res[True], res[False]):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_array_equal(np.isinf(a), np.isinf(b))
        ok = np.isfinite(a) & np.isfinite(b)
        close(a[ok], b[ok], "finite part")


def test_max_pool_ties_like_torch():
    # equal values in a window: the gradient goes to the first
    spec = [conv(8, 8, k=1, bias=False), bn(8, affine=False), RELU, POOL]
    a = np.zeros((2, 8, 4, 4), np.float32)
    a[0, :, 0, 0] = a[0, :, 0, 1] = 3.0
    a[1, :, 2, 3] = 5.0
    outs = {}
    for lib in (ember, torch):
        model = build(lib, spec)
        with lib.no_grad():
            model[0].weight.copy_(lib.eye(8).view(8, 8, 1, 1))
        x = lib.from_numpy(a).requires_grad_()
        y = model(x)
        (y * lib.arange(y.numel()).float().view(tuple(y.shape))).sum().backward()
        outs[lib.__name__] = (y.detach().numpy(), x.grad.numpy())
        assert lib is torch or fused(y)
    close(outs["ember"][0], outs["torch"][0], "output")
    close(outs["ember"][1], outs["torch"][1], "input grad")


def test_backward_twice_and_in_place_weight_raise_as_unfused():
    spec = [conv(8, 8, padding=1), bn(8), RELU, POOL]
    for fuse in (True, False):
        ember.backends.mkldnn.fuse_train = fuse
        model = build(ember, spec)
        x = ember.randn(2, 8, 4, 4)
        y = model(x).sum()
        y.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()
        y = model(x).sum()
        with ember.no_grad():
            model[0].weight.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()


def test_in_place_on_output_as_unfused():
    # ReLU's result is saved (an in-place write into it fails backward); the pooling's output is not
    for fuse in (True, False):
        ember.backends.mkldnn.fuse_train = fuse
        for spec, fails in (([conv(8, 8, padding=1), bn(8), RELU], True),
                            ([conv(8, 8, padding=1), bn(8), RELU, POOL], False)):
            model = build(ember, spec)
            y = model(ember.randn(2, 8, 4, 4))
            assert fused(y) == fuse
            y.add_(1)
            if fails:
                with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                    y.sum().backward()
            else:
                y.sum().backward()


def test_retain_graph():
    spec = [conv(8, 8, padding=1), bn(8), RELU, POOL]
    model = build(ember, spec)
    x = ember.randn(2, 8, 4, 4, requires_grad=True)
    y = model(x)
    assert fused(y)
    y.sum().backward(retain_graph=True)
    first = x.grad.clone()
    y.sum().backward()
    close(x.grad.numpy(), 2 * first.numpy(), "twice")


def test_hooks_subclasses_and_eval_keep_module_path():
    spec = [conv(8, 8, padding=1), bn(8), RELU, POOL]
    model = build(ember, spec)
    x = ember.randn(2, 8, 4, 4)
    seen = []
    handle = model[1].register_forward_hook(lambda m, i, o: seen.append(o.shape))
    assert not fused(model(x)) and len(seen) == 1
    handle.remove()
    assert fused(model(x))
    model[1].eval()
    assert not fused(model(x))
    model[1].train()
    with ember.no_grad():
        assert model(x).grad_fn is None


def test_switch():
    assert ember.backends.mkldnn.fuse_train is True
    ember.backends.mkldnn.fuse_train = False
    assert ember.backends.mkldnn.fuse_train is False
    with pytest.raises(TypeError, match="fuse_train expects a bool"):
        ember.backends.mkldnn.fuse_train = 1


def test_no_openmp_team_started():
    # a plain first layer's primitives are made on one OpenMP thread, as the chunks that run them (a primitive made on
    # the default team size starts a team when run); in a fresh process, as torch's import may start one
    code = """if True:
        import os, ember
        ember.set_num_threads(1)
        count = lambda: len(os.listdir(f"/proc/{os.getpid()}/task"))
        before = count()
        for cin, x_grad in ((3, False), (5, True)):
            nn = ember.nn
            model = nn.Sequential(nn.Conv2d(cin, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())
            y = model(ember.randn(8, cin, 16, 16, requires_grad=x_grad))
            assert len(y.grad_fn.next_functions) > 1
            y.sum().backward()
        assert count() == before, (before, count())
    """
    env = dict(os.environ, OMP_NUM_THREADS="2")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr

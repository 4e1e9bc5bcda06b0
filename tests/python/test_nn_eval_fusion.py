"""nn.Sequential's fused inference path (issue 11): runs of Conv2d [-> BatchNorm2d eval] [-> ReLU], MaxPool2d and eval
Dropout run as one oneDNN chain when no gradient is needed. Results match torch and the unfused path within float32
rounding; hooks, subclasses, train mode, gradients, non-finite inputs, layouts and other dtypes keep the module-by-module
path; the folded weights follow in-place updates and loads."""
import numpy as np
import pytest
import torch

import ember

TOL = dict(rtol=1e-4, atol=1e-5)


@pytest.fixture(autouse=True)
def fusion_on():
    ember.backends.mkldnn.fuse_eval = True
    yield
    ember.backends.mkldnn.fuse_eval = True


def build(lib, spec, dtype="float32"):
    """spec: a list of (name, args, kwargs) of lib.nn modules, built from seed 0; BatchNorm running stats set to
    random values (the same in both libraries)."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(*[getattr(lib.nn, name)(*args, **kw) for name, args, kw in spec])
    rng = np.random.default_rng(5)
    for m in model:
        if type(m).__name__ == "BatchNorm2d" and m.running_mean is not None:
            n = m.num_features
            m.running_mean.copy_(lib.from_numpy(rng.standard_normal(n).astype(np.float32)))
            m.running_var.copy_(lib.from_numpy(rng.uniform(0.5, 2.0, n).astype(np.float32)))
            if m.weight is not None:
                with lib.no_grad():
                    m.weight.copy_(lib.from_numpy(rng.uniform(0.5, 1.5, n).astype(np.float32)))
                    m.bias.copy_(lib.from_numpy(rng.standard_normal(n).astype(np.float32)))
    return model.to(getattr(lib, dtype)).eval()


def pair(shape, seed=1, dtype="float32"):
    a = np.random.default_rng(seed).standard_normal(shape)
    return ember.from_numpy(a).to(getattr(ember, dtype)), torch.from_numpy(a).to(getattr(torch, dtype))


def conv(cin, cout, **kw):
    return ("Conv2d", (cin, cout, kw.pop("k", 3)), kw)


def bn(n, **kw):
    return ("BatchNorm2d", (n,), kw)


RELU, POOL = ("ReLU", (), {}), ("MaxPool2d", (2,), {})
SEED_CNN = [conv(3, 8, padding=1), bn(8), ("ReLU", (), {"inplace": True}), conv(8, 8, padding=1), bn(8), RELU, POOL,
            ("Dropout2d", (0.25,), {}), conv(8, 16, padding=1), bn(16), RELU, POOL, ("Dropout", (0.5,), {}),
            ("Flatten", (), {}), ("Linear", (16 * 4 * 4, 10), {})]
SPECS = {
    "seed_cnn": SEED_CNN,
    "stride_dilation_groups": [conv(4, 8, stride=2), bn(8), RELU, conv(8, 8, padding=2, dilation=2, groups=2),
                               RELU, conv(8, 6, k=1, bias=False), bn(6)],
    "no_affine_valid": [conv(4, 6, padding="valid"), bn(6, affine=False), conv(6, 6, padding=1), RELU],
    "pools": [conv(4, 8, padding=1), ("MaxPool2d", (3, 2, 1), {}), conv(8, 8, padding=1),
              ("MaxPool2d", (2,), {"ceil_mode": True}), ("Identity", (), {}), ("MaxPool2d", (2, 1), {})],
    "odd_pools": [conv(4, 8, padding=1), ("MaxPool2d", (2,), {}), conv(8, 8, padding=1), RELU,
                  ("MaxPool2d", (2,), {"ceil_mode": True}), conv(8, 16, padding=1), ("MaxPool2d", (2,), {})],
    "bn_without_running_stats": [conv(4, 8, padding=1), bn(8, track_running_stats=False), RELU],
    "same_padding": [conv(4, 8, padding="same"), bn(8), RELU],
    "reflect": [conv(4, 8, padding=1, padding_mode="reflect"), bn(8), RELU],
}


def check(spec, shape, dtype="float32", grad=False):
    em, tm = build(ember, spec, dtype), build(torch, spec, dtype)
    ex, tx = pair(shape, dtype=dtype)
    with ember.set_grad_enabled(grad), torch.set_grad_enabled(grad):
        ey, ty = em(ex), tm(tx)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), **TOL)
    assert ey.shape == ty.shape and ey.stride() == ty.stride() and ey.dtype == getattr(ember, dtype)
    return em, ex, ey


@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize("batch", [1, 5, 8])
def test_matches_torch(name, batch):
    spec = SPECS[name]
    size = 15 if name == "odd_pools" else 16
    shape = (batch, 3 if spec is SEED_CNN else 4, size, size)
    em, ex, fused = check(spec, shape)
    ember.backends.mkldnn.fuse_eval = False
    with ember.no_grad():
        unfused = em(ex)
    np.testing.assert_allclose(fused.numpy(), unfused.numpy(), **TOL)


def test_fusion_engages_and_switch_restores_module_results():
    em, ex, fused = check(SEED_CNN, (8, 3, 16, 16))
    ember.backends.mkldnn.fuse_eval = False
    assert ember.backends.mkldnn.fuse_eval is False
    with ember.no_grad():
        unfused = em(ex)
        x = ex
        for m in em:
            x = m(x)
    assert np.array_equal(unfused.numpy(), x.numpy())
    assert not np.array_equal(fused.numpy(), unfused.numpy())  # the folded BatchNorm rounds differently
    with pytest.raises(TypeError):
        ember.backends.mkldnn.fuse_eval = 1
    assert ember.backends.mkldnn.is_available()


def test_without_grad_mode_off_when_nothing_requires_grad():
    em, tm = build(ember, SEED_CNN), build(torch, SEED_CNN)
    em.requires_grad_(False)
    tm.requires_grad_(False)
    ex, tx = pair((4, 3, 16, 16))
    ey, ty = em(ex), tm(tx)
    assert ey.grad_fn is None and not ey.requires_grad
    np.testing.assert_allclose(ey.numpy(), ty.numpy(), **TOL)


def test_gradients_keep_the_module_path():
    em, tm = build(ember, SEED_CNN), build(torch, SEED_CNN)
    ex, tx = pair((4, 3, 16, 16))
    ey, ty = em(ex), tm(tx)
    assert type(ey.grad_fn).__name__ == type(ty.grad_fn).__name__
    ey.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(em[0].weight.grad.numpy(), tm[0].weight.grad.numpy(), rtol=1e-4, atol=1e-4)
    ex.requires_grad_(True)
    tx.requires_grad_(True)
    em.requires_grad_(False)
    tm.requires_grad_(False)
    em(ex).sum().backward()
    tm(tx).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_train_mode_updates_running_stats_under_no_grad():
    em, tm = build(ember, SEED_CNN).train(), build(torch, SEED_CNN).train()
    ex, tx = pair((4, 3, 16, 16))
    with ember.no_grad(), torch.no_grad():
        ey, ty = em(ex), tm(tx)
    np.testing.assert_allclose(ey.numpy(), ty.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(em[1].running_mean.numpy(), tm[1].running_mean.numpy(), **TOL)
    assert int(em[1].num_batches_tracked) == 1


def test_hooks_and_subclasses_run():
    em, tm = build(ember, SEED_CNN), build(torch, SEED_CNN)
    seen = {}
    for lib, model in (("ember", em), ("torch", tm)):
        model[4].register_forward_hook(lambda m, i, o, lib=lib: seen.__setitem__(lib, o.detach().numpy().copy()))
    ex, tx = pair((4, 3, 16, 16))
    with ember.no_grad(), torch.no_grad():
        np.testing.assert_allclose(em(ex).numpy(), tm(tx).numpy(), **TOL)
    np.testing.assert_allclose(seen["ember"], seen["torch"], **TOL)

    class Doubling(ember.nn.Conv2d):
        def forward(self, x):
            return 2 * super().forward(x)

    class TorchDoubling(torch.nn.Conv2d):
        def forward(self, x):
            return 2 * super().forward(x)
    ember.manual_seed(0)
    torch.manual_seed(0)
    es = ember.nn.Sequential(Doubling(3, 4, 3), ember.nn.ReLU()).eval()
    ts = torch.nn.Sequential(TorchDoubling(3, 4, 3), torch.nn.ReLU()).eval()
    with ember.no_grad(), torch.no_grad():
        np.testing.assert_allclose(es(ex).numpy(), ts(tx).numpy(), **TOL)


def test_folded_weights_follow_updates():
    em, tm = build(ember, SEED_CNN), build(torch, SEED_CNN)
    ex, tx = pair((4, 3, 16, 16))

    def same():
        with ember.no_grad(), torch.no_grad():
            np.testing.assert_allclose(em(ex).numpy(), tm(tx).numpy(), **TOL)
    same()
    for lib, model in ((ember, em), (torch, tm)):  # in-place writes to a conv weight, a running stat, a bias; eps
        with lib.no_grad():
            model[0].weight.mul_(1.5)
            model[1].running_var.mul_(2)
            model[4].bias.add_(0.5)
        model[1].eps = 0.1
    same()
    state = {k: v.numpy() * 0.9 if v.dtype.is_floating_point else v.numpy() for k, v in tm.state_dict().items()}
    tm.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    em.load_state_dict({k: ember.from_numpy(v) for k, v in state.items()})
    same()
    w = np.random.default_rng(3).standard_normal(tuple(tm[3].weight.shape)).astype(np.float32)
    tm[3].weight = torch.nn.Parameter(torch.from_numpy(w))
    em[3].weight = ember.nn.Parameter(ember.from_numpy(w.copy()))
    same()


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_inputs_match_torch(value):
    em, tm = build(ember, SEED_CNN), build(torch, SEED_CNN)
    ex, tx = pair((4, 3, 16, 16))
    ex[1, 2, 3, 4] = value
    tx[1, 2, 3, 4] = value
    with ember.no_grad(), torch.no_grad():
        ey, ty = em(ex).numpy(), tm(tx).numpy()
    assert np.array_equal(np.isnan(ey), np.isnan(ty))
    np.testing.assert_allclose(ey, ty, **TOL)


@pytest.mark.parametrize("scale", [1e20, 1e13])
def test_values_that_overflow_inside_the_chain_match_torch(scale):
    # finite input and weights whose product overflows: inf - inf in the second convolution is nan, which
    # oneDNN's ReLU post-op would turn into 0 (torch keeps nan); 1e13 stays finite but beyond the fusion's bound
    spec = [conv(1, 2, k=1), RELU, conv(2, 2, k=1), RELU, POOL]
    models = []
    for lib in (ember, torch):
        m = build(lib, spec)
        with lib.no_grad():
            m[0].weight.fill_(scale)
            m[2].weight.copy_(lib.tensor([[[[1.0]], [[-1.0]]], [[[2.0]], [[0.5]]]]))
        models.append(m)
    ex, tx = pair((2, 1, 4, 4))
    with ember.no_grad(), torch.no_grad():
        ey, ty = models[0](ex.abs() * scale).numpy(), models[1](tx.abs() * scale).numpy()
    assert np.array_equal(np.isnan(ey), np.isnan(ty)) and np.array_equal(np.isinf(ey), np.isinf(ty))
    np.testing.assert_allclose(ey, ty, **TOL)


def test_channels_last_and_float64_take_the_module_path():
    em, tm = build(ember, SEED_CNN), build(torch, SEED_CNN)
    ex, tx = pair((4, 3, 16, 16))
    ex, tx = ex.to(memory_format=ember.channels_last), tx.to(memory_format=torch.channels_last)
    features_e, features_t = em[:12], tm[:12]
    with ember.no_grad(), torch.no_grad():
        ey, ty = features_e(ex), features_t(tx)
    assert ey.stride() == ty.stride()
    np.testing.assert_allclose(ey.numpy(), ty.numpy(), **TOL)
    check(SEED_CNN, (4, 3, 16, 16), dtype="float64")

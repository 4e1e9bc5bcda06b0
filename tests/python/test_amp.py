"""Automatic mixed precision against torch 2.13: CPU autocast (bfloat16, float16) result dtypes and values of the
listed ops, casts in autograd, nesting and the decorator, the weight-cast cache; GradScaler's scale over steps with
injected infs, skipped steps, state_dict; and, on a GPU, CUDA autocast float16 with a GradScaler training step."""
import importlib
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember


def pair(*shape, seed=0, dtype="float32", requires_grad=False):
    """The same random values as an Ember and a torch tensor."""
    arr = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    e = ember.from_numpy(arr.copy()).to(getattr(ember, dtype)).requires_grad_(requires_grad)
    t = torch.from_numpy(arr.copy()).to(getattr(torch, dtype)).requires_grad_(requires_grad)
    return e, t


def labels(n, classes, seed=1):
    arr = np.random.default_rng(seed).integers(0, classes, n)
    return ember.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def check(e, t, rtol=2e-2, atol=2e-2):
    assert str(e.dtype) == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().float().numpy(), t.detach().float().numpy(), rtol=rtol, atol=atol)


# name -> (function of (module, F, tensors), input shapes): each listed op that Ember has, and some unlisted ones
OPS = {
    "mm": (lambda m, F, a, b: m.mm(a, b), [(3, 4), (4, 5)]),
    "matmul": (lambda m, F, a, b: m.matmul(a, b), [(2, 3, 4), (4, 5)]),
    "matmul_vec": (lambda m, F, a, b: a @ b, [(4,), (4,)]),
    "bmm": (lambda m, F, a, b: m.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
    "addmm": (lambda m, F, c, a, b: m.addmm(c, a, b), [(3, 5), (3, 4), (4, 5)]),
    "baddbmm": (lambda m, F, c, a, b: m.baddbmm(c, a, b), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    "linear": (lambda m, F, x, w, b: F.linear(x, w, b), [(2, 4), (3, 4), (3,)]),
    "linear_3d": (lambda m, F, x, w: F.linear(x, w), [(2, 2, 4), (3, 4)]),
    "conv1d": (lambda m, F, x, w, b: F.conv1d(x, w, b), [(1, 2, 7), (3, 2, 3), (3,)]),
    "conv2d": (lambda m, F, x, w: F.conv2d(x, w, padding=1), [(1, 2, 5, 5), (3, 2, 3, 3)]),
    "conv3d": (lambda m, F, x, w: F.conv3d(x, w), [(1, 2, 4, 4, 4), (3, 2, 2, 2, 2)]),
    "conv_transpose1d": (lambda m, F, x, w, b: F.conv_transpose1d(x, w, b, stride=2), [(1, 2, 4), (2, 3, 3), (3,)]),
    "conv_transpose2d": (lambda m, F, x, w: F.conv_transpose2d(x, w), [(1, 2, 4, 4), (2, 3, 3, 3)]),
    "prelu": (lambda m, F, x, w: F.prelu(x, w), [(2, 3, 4), (3,)]),
    "sdpa": (lambda m, F, q, k, v: F.scaled_dot_product_attention(q, k, v), [(1, 2, 3, 4)] * 3),
    "einsum": (lambda m, F, a, b: m.einsum("bij,bjk->bik", a, b), [(2, 3, 4), (2, 4, 5)]),
    "cat": (lambda m, F, a, b: m.cat([a.to(m.bfloat16), b]), [(2, 3), (2, 3)]),
    "stack": (lambda m, F, a, b: m.stack([a.to(m.bfloat16), b]), [(2, 3), (2, 3)]),
    "cat_half_float": (lambda m, F, a, b: m.cat([a.to(m.float16), b]), [(2, 3), (2, 3)]),
    "cat_bf16": (lambda m, F, a, b: m.cat([a.to(m.bfloat16), b.to(m.bfloat16)]), [(2, 3), (2, 3)]),
    "prod": (lambda m, F, a: m.prod(a.to(m.bfloat16) + 2, 1), [(2, 3)]),
    "cdist": (lambda m, F, a, b: m.cdist(a.to(m.bfloat16), b), [(3, 4), (2, 4)]),
    "trace": (lambda m, F, a: m.trace(a.to(m.bfloat16)), [(3, 3)]),
    "mse_loss": (lambda m, F, a, b: F.mse_loss(a.to(m.bfloat16), b), [(3, 4), (3, 4)]),
    "l1_loss": (lambda m, F, a, b: F.l1_loss(a.to(m.bfloat16), b), [(3, 4), (3, 4)]),
    "smooth_l1_loss": (lambda m, F, a, b: F.smooth_l1_loss(a.to(m.bfloat16), b), [(3, 4), (3, 4)]),
    "huber_loss": (lambda m, F, a, b: F.huber_loss(a.to(m.bfloat16), b), [(3, 4), (3, 4)]),
    "kl_div": (lambda m, F, a, b: F.kl_div(a.to(m.bfloat16), b.abs(), reduction="batchmean"), [(3, 4), (3, 4)]),
    "soft_margin_loss": (lambda m, F, a, b: F.soft_margin_loss(a.to(m.bfloat16), b.sign()), [(3, 4), (3, 4)]),
    "bce_logits": (lambda m, F, a, b: F.binary_cross_entropy_with_logits(a.to(m.bfloat16), b.sigmoid()),
                   [(3, 4), (3, 4)]),
    "bce": (lambda m, F, a, b: F.binary_cross_entropy(a.sigmoid().to(m.bfloat16), b.sigmoid()), [(3, 4), (3, 4)]),
    "cosine_embedding_loss": (lambda m, F, a, b, c: F.cosine_embedding_loss(a.to(m.bfloat16), b, c.sign()),
                              [(3, 4), (3, 4), (3,)]),
    "margin_ranking_loss": (lambda m, F, a, b, c: F.margin_ranking_loss(a.to(m.bfloat16), b, c.sign()),
                            [(3,), (3,), (3,)]),
    "triplet_margin_loss": (lambda m, F, a, b, c: F.triplet_margin_loss(a.to(m.bfloat16), b, c),
                            [(3, 4), (3, 4), (3, 4)]),
    "hinge_embedding_loss": (lambda m, F, a, b: F.hinge_embedding_loss(a.to(m.bfloat16), b.sign()),
                             [(3, 4), (3, 4)]),
    "poisson_nll_loss": (lambda m, F, a, b: F.poisson_nll_loss(a.to(m.bfloat16), b.abs()), [(3, 4), (3, 4)]),
    "quantile": (lambda m, F, a: m.quantile(a.to(m.bfloat16), 0.3, dim=1), [(3, 4)]),
    "svd": (lambda m, F, a: m.linalg.svd(a.to(m.bfloat16))[1], [(4, 3)]),
    "svdvals": (lambda m, F, a: m.linalg.svdvals(a.to(m.bfloat16)), [(3, 4)]),
    "svd_old": (lambda m, F, a: m.svd(a.to(m.bfloat16))[1], [(4, 3)]),
    "pad_reflect1d": (lambda m, F, a: F.pad(a.to(m.bfloat16), (2, 1), mode="reflect"), [(1, 2, 4)]),
    "pad_reflect2d": (lambda m, F, a: F.pad(a.to(m.bfloat16), (1, 1, 1, 0), mode="reflect"), [(1, 2, 3, 4)]),
    "pad_replicate3d": (lambda m, F, a: F.pad(a.to(m.bfloat16), (1, 1, 1, 0, 0, 1), mode="replicate"),
                        [(1, 1, 2, 3, 4)]),
    # not listed for the CPU: the inputs' dtype
    "pad_reflect3d": (lambda m, F, a: F.pad(a.to(m.bfloat16), (1, 1, 1, 0, 0, 1), mode="reflect"), [(1, 1, 2, 3, 4)]),
    "pad_circular": (lambda m, F, a: F.pad(a.to(m.bfloat16), (1, 1), mode="circular"), [(1, 2, 4)]),
    "pad_constant": (lambda m, F, a: F.pad(a.to(m.bfloat16), (1, 1)), [(1, 2, 4)]),
    "softmax": (lambda m, F, a: F.softmax(a.to(m.bfloat16), 1), [(3, 4)]),
    "layer_norm": (lambda m, F, a: F.layer_norm(a.to(m.bfloat16), (4,)), [(3, 4)]),
    "sum": (lambda m, F, a: a.to(m.bfloat16).sum(), [(3, 4)]),
    "exp": (lambda m, F, a: a.to(m.bfloat16).exp(), [(3, 4)]),
    "add": (lambda m, F, a, b: a.to(m.bfloat16) + b, [(3, 4), (3, 4)]),
    "mv": (lambda m, F, a, b: m.mv(a, b), [(3, 4), (4,)]),
    "bilinear": (lambda m, F, a, b, w: F.bilinear(a, b, w), [(2, 3), (2, 4), (5, 3, 4)]),
    "tensordot": (lambda m, F, a, b: m.tensordot(a, b, 1), [(3, 4), (4, 5)]),
    "tensordot_full": (lambda m, F, a, b: m.tensordot(a, b, 2), [(3, 4), (3, 4)]),
    "addmv": (lambda m, F, c, a, b: m.addmv(c, a, b), [(3,), (3, 4), (4,)]),
    "dot": (lambda m, F, a, b: m.dot(a, b), [(4,), (4,)]),
    "inner": (lambda m, F, a, b: m.inner(a, b), [(4,), (4,)]),
    "outer": (lambda m, F, a, b: m.outer(a, b), [(4,), (3,)]),
    "convolution": (lambda m, F, x, w: m.convolution(x, w, None, [1], [0], [1], False, [0], 1), [(1, 2, 5), (3, 2, 2)]),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_cpu_autocast_op(name, dtype):
    fn, shapes = OPS[name]
    ins = [pair(*s, seed=i) for i, s in enumerate(shapes)]
    results = []
    for mod, k in ((ember, 0), (torch, 1)):
        with mod.autocast("cpu", dtype=getattr(mod, dtype)):
            try:
                results.append(fn(mod, mod.nn.functional, *[p[k] for p in ins]))
            except RuntimeError as exc:  # torch's promote raises for bfloat16 inputs in a float16 region
                results.append(str(exc))
    e, t = results
    if isinstance(t, str):
        assert e == t
    else:
        check(e, t, rtol=3e-2, atol=3e-2)


@pytest.mark.parametrize("name", ["nll_loss", "cross_entropy"])
def test_cpu_autocast_class_losses(name):
    (xe, xt), (ye, yt) = pair(4, 5), labels(4, 5)
    with ember.autocast("cpu"):
        e = getattr(ember.nn.functional, name)(ember.mm(xe, xe.t()[:, :5].contiguous()) if False else
                                               xe.to(ember.bfloat16), ye)
    with torch.autocast("cpu"):
        t = getattr(torch.nn.functional, name)(xt.to(torch.bfloat16), yt)
    check(e, t)


def test_float64_and_integer_inputs_are_not_cast():
    (ae, at), (be, bt) = pair(3, 4, dtype="float64"), pair(4, 2, dtype="float64")
    with ember.autocast("cpu"):
        assert ember.mm(ae, be).dtype == ember.float64
        assert ember.cat([ae, ae.to(ember.bfloat16)]).dtype == ember.float64
        assert ember.cat([ember.arange(3), ember.arange(3)]).dtype == ember.int64
    with torch.autocast("cpu"):
        assert torch.cat([at, at.to(torch.bfloat16)]).dtype == torch.float64


def test_gradients_through_casts():
    (xe, xt), (we, wt), (be, bt) = pair(4, 3, requires_grad=True), pair(5, 3, seed=1, requires_grad=True), \
        pair(5, seed=2, requires_grad=True)
    results = []
    for mod, x, w, b in ((ember, xe, we, be), (torch, xt, wt, bt)):
        with mod.autocast("cpu"):
            y = mod.nn.functional.linear(x, w, b)
            loss = mod.nn.functional.mse_loss(y, mod.zeros(4, 5))
        assert y.dtype == mod.bfloat16 and loss.dtype == mod.float32
        loss.backward()
        results.append((y, loss, x.grad, w.grad, b.grad))
    for e, t in zip(*results):
        check(e, t)
    assert type(results[0][0].grad_fn).__name__ == type(results[1][0].grad_fn).__name__


def test_cast_nodes_in_graph():
    we, wt = pair(3, 3, requires_grad=True)
    xe, xt = pair(2, 3, seed=1)
    with ember.autocast("cpu"):
        ye = ember.mm(xe, we)
    with torch.autocast("cpu"):
        yt = torch.mm(xt, wt)
    names = [type(f[0]).__name__ for f in ye.grad_fn.next_functions if f[0] is not None]
    assert names == [type(f[0]).__name__ for f in yt.grad_fn.next_functions if f[0] is not None]
    assert "ToCopyBackward0" in names


def test_weight_cache_inside_region():
    we, _ = pair(3, 3, requires_grad=True)
    xe, _ = pair(2, 3, seed=1)
    with ember.autocast("cpu"):
        a, b = ember.mm(xe, we), ember.mm(xe, we)
        # one cast of the weight feeds both products (torch caches casts of leaves requiring grad)
        assert a.grad_fn.next_functions[1][0] is b.grad_fn.next_functions[1][0]
        with ember.autocast("cpu", cache_enabled=False):
            c = ember.mm(xe, we)
        assert c.grad_fn.next_functions[1][0] is not a.grad_fn.next_functions[1][0]
    with ember.autocast("cpu"):  # a new outermost region starts with an empty cache
        d = ember.mm(xe, we)
    assert d.grad_fn.next_functions[1][0] is not a.grad_fn.next_functions[1][0]
    (a.sum() + b.sum()).backward()
    expected = 2 * xe.to(ember.bfloat16).sum(0).float()
    np.testing.assert_allclose(we.grad.numpy(), np.repeat(expected.numpy()[:, None], 3, 1), rtol=2e-2)


def test_cast_under_no_grad_is_not_cached():
    for mod in (ember, torch):
        w, x = mod.ones(2, 2, requires_grad=True), mod.ones(2, 2)
        with mod.autocast("cpu"):
            with mod.no_grad():
                mod.mm(x, w)
            y = mod.mm(x, w)
        assert y.requires_grad and type(y.grad_fn).__name__ == "MmBackward0"


def test_state_functions_and_nesting():
    for mod in (ember, torch):
        assert not mod.is_autocast_enabled("cpu") and not mod.is_autocast_enabled()
        assert mod.get_autocast_dtype("cpu") == mod.bfloat16 and mod.get_autocast_dtype("cuda") == mod.float16
        assert mod.is_autocast_cache_enabled()
        with mod.autocast("cpu"):
            assert mod.is_autocast_enabled("cpu") and not mod.is_autocast_enabled("cuda")
            with mod.autocast("cpu", enabled=False):
                assert not mod.is_autocast_enabled("cpu")
                assert mod.mm(mod.ones(2, 2), mod.ones(2, 2)).dtype == mod.float32
            with mod.autocast("cpu", dtype=mod.float16, cache_enabled=False):
                assert mod.get_autocast_dtype("cpu") == mod.float16 and not mod.is_autocast_cache_enabled()
                assert mod.mm(mod.ones(2, 2), mod.ones(2, 2)).dtype == mod.float16
            assert mod.get_autocast_dtype("cpu") == mod.bfloat16 and mod.is_autocast_cache_enabled()
            assert mod.mm(mod.ones(2, 2), mod.ones(2, 2)).dtype == mod.bfloat16
        assert not mod.is_autocast_enabled("cpu")
        mod.set_autocast_enabled("cpu", True)
        assert mod.mm(mod.ones(2, 2), mod.ones(2, 2)).dtype == mod.bfloat16
        mod.set_autocast_enabled("cpu", False)
        assert mod.autocast_increment_nesting() == 1 and mod.autocast_decrement_nesting() == 0


def test_set_enabled_takes_bools():
    for mod in (ember, torch):
        for args in (("cpu", 1), ("cpu", None), (1,), ("cpu", mod.tensor(True))):
            with pytest.raises(TypeError, match="argument 'enabled' \\(position [12]\\) must be bool"):
                mod.set_autocast_enabled(*args)
        mod.set_autocast_enabled(False)
        assert not mod.is_autocast_enabled("cuda")


def test_exception_restores_state():
    with pytest.raises(ValueError):
        with ember.autocast("cpu"):
            raise ValueError
    assert not ember.is_autocast_enabled("cpu")
    assert ember.mm(ember.ones(2, 2), ember.ones(2, 2)).dtype == ember.float32


def test_decorator():
    for mod in (ember, torch):
        @mod.autocast("cpu")
        def f(a, b):
            """doc"""
            return mod.mm(a, b)
        assert f(mod.ones(2, 2), mod.ones(2, 2)).dtype == mod.bfloat16 and f.__doc__ == "doc"
        assert not mod.is_autocast_enabled("cpu")
    with pytest.raises(TypeError, match="requires a callable"):
        ember.autocast("cpu")(3)


def test_aliases_and_warnings():
    for mod in (ember, torch):
        with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.autocast\(args...\)` is deprecated"):
            ctx = mod.cpu.amp.autocast()
        with ctx:
            assert mod.is_autocast_enabled("cpu") and mod.get_autocast_dtype("cpu") == mod.bfloat16
        with pytest.warns(UserWarning, match="the target dtype is not supported"):
            ctx = mod.autocast("cpu", dtype=mod.float64)
        with ctx:
            assert not mod.is_autocast_enabled("cpu")
        with pytest.warns(DeprecationWarning, match="is_autocast_cpu_enabled"):
            assert not mod.is_autocast_cpu_enabled()
        assert mod.amp.autocast is mod.autocast
    assert importlib.import_module("ember.cpu.amp").autocast is ember.cpu.amp.autocast  # importable by name
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.autocast(ember.device("cpu"))
    with pytest.raises(RuntimeError):
        ember.autocast("xpu2")


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the CPU-only behaviour")
def test_cuda_unavailable_disables():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        ctx = ember.autocast("cuda")
    with ctx:
        assert not ember.is_autocast_enabled("cuda")
    with pytest.warns(FutureWarning, match="torch.cuda.amp.GradScaler"), \
            pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available"):
        scaler = ember.cuda.amp.GradScaler()
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0 and scaler.state_dict() == {}


# GradScaler


def model_pair(seed=0):
    (we, wt), (be, bt) = pair(3, 4, seed=seed), pair(3, seed=seed + 1)
    models = []
    for mod, w, b in ((ember, we, be), (torch, wt, bt)):
        lin = mod.nn.Linear(4, 3)
        with mod.no_grad():
            lin.weight.copy_(w)
            lin.bias.copy_(b)
        models.append(lin)
    return models


def test_grad_scaler_sequence_with_infs():
    """Scale, growth tracker, parameters and skipped steps over steps with injected infs and NaNs, as torch."""
    (xe, xt) = pair(5, 4, seed=7)
    runs = []
    for mod, model, x in zip((ember, torch), model_pair(), (xe, xt)):
        opt = mod.optim.SGD(model.parameters(), lr=0.1)
        scaler = mod.amp.GradScaler("cpu", init_scale=2.0**8, growth_interval=3)
        history = []
        for step in range(12):
            opt.zero_grad()
            loss = model(x).square().mean()
            scaler.scale(loss).backward()
            if step in (2, 7):
                model.weight.grad[0, 0] = float("inf")
            if step == 8:
                model.bias.grad[1] = float("nan")
            if step == 5:
                scaler.unscale_(opt)
            ret = scaler.step(opt)
            scaler.update()
            history.append((scaler.get_scale(), scaler._get_growth_tracker(), ret,
                            model.weight.detach().numpy().copy()))
        runs.append((history, scaler.state_dict()))
    (he, se), (ht, st) = runs
    assert [h[:3] for h in he] == [h[:3] for h in ht]
    for e, t in zip(he, ht):
        np.testing.assert_allclose(e[3], t[3], rtol=1e-6, atol=1e-7)
    assert se == st


def test_grad_scaler_scale_outputs_and_errors():
    scaler = ember.amp.GradScaler("cpu", init_scale=4.0)
    a, b = ember.ones(2), ember.ones(3)
    ya, (yb, yc) = scaler.scale(a), scaler.scale([a, b])
    assert ya.tolist() == [4.0, 4.0] and yb.tolist() == [4.0, 4.0] and yc.tolist() == [4.0] * 3
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        scaler.scale(3)
    model = ember.nn.Linear(2, 1)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    scaler.scale(model(ember.ones(1, 2)).sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    scaler.update(16.0)
    assert scaler.get_scale() == 16.0
    with pytest.raises(AssertionError, match="The growth factor must be > 1.0."):
        ember.amp.GradScaler("cpu", growth_factor=1.0)


def test_grad_scaler_state_dict_round_trip():
    src = ember.amp.GradScaler("cpu", init_scale=2.0**10, growth_factor=3.0, backoff_factor=0.25, growth_interval=7)
    model = ember.nn.Linear(2, 1)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        src.scale(model(ember.ones(1, 2)).sum()).backward()
        src.step(opt)
        src.update()
    state = src.state_dict()
    assert state == {"scale": 1024.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 7,
                     "_growth_tracker": 2}
    dst = ember.amp.GradScaler("cpu")
    dst.load_state_dict(state)
    assert dst.state_dict() == state
    assert pickle.loads(pickle.dumps(src)).state_dict() == state
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        dst.load_state_dict({})


def test_amp_ops_match_torch():
    for mod in (ember, torch):
        grads = [mod.tensor([1.0, 2.0]), mod.tensor([4.0, 8.0], dtype=mod.bfloat16), mod.tensor(16.0)]
        found = mod.zeros(())
        mod._amp_foreach_non_finite_check_and_unscale_(grads, found, mod.full((), 0.25))
        assert found.item() == 0.0 and [g.tolist() for g in grads] == [[0.25, 0.5], [1.0, 2.0], 4.0]
        grads = [mod.tensor([1.0, float("inf")]), mod.tensor([2.0])]
        mod._amp_foreach_non_finite_check_and_unscale_(grads, found, mod.full((), 0.5))
        assert found.item() == 1.0 and grads[1].tolist() == [1.0]
        scale, tracker = mod.full((), 8.0), mod.full((), 1, dtype=mod.int32)
        mod._amp_update_scale_(scale, tracker, mod.zeros(()), 2.0, 0.5, 2)
        assert (scale.item(), tracker.item()) == (16.0, 0)
        mod._amp_update_scale_(scale, tracker, mod.zeros(()), 2.0, 0.5, 2)
        assert (scale.item(), tracker.item()) == (16.0, 1)
        mod._amp_update_scale_(scale, tracker, mod.ones(()), 2.0, 0.5, 2)
        assert (scale.item(), tracker.item()) == (8.0, 0)
        big = mod.full((), 3e38)
        tracker.fill_(1)
        mod._amp_update_scale_(big, tracker, mod.zeros(()), 2.0, 0.5, 2)  # a grown scale that overflows is kept
        assert (big.item() == mod.full((), 3e38).item(), tracker.item()) == (True, 0)


def test_autocast_off_costs_nothing_visible():
    """With autocast off the hooks change nothing: results and graphs are those of plain calls."""
    (ae, _), (be, _) = pair(3, 4, requires_grad=True), pair(4, 5, seed=1)
    y = ember.mm(ae, be)
    assert y.dtype == ember.float32 and type(y.grad_fn).__name__ == "MmBackward0"


# CUDA (run where a GPU is lent)

CUDA_LOWER = ["mm", "matmul", "bmm", "addmm", "baddbmm", "linear", "conv1d", "conv2d", "conv_transpose2d", "prelu",
              "sdpa", "einsum", "mv"]
CUDA_FP32 = ["mse_loss", "l1_loss", "smooth_l1_loss", "kl_div", "bce_logits", "softmax", "layer_norm", "sum",
             "cdist", "poisson_nll_loss", "exp"]


@pytest.mark.cuda
@pytest.mark.parametrize("name", CUDA_LOWER + CUDA_FP32 + ["cat_half_float", "add", "dot"])
def test_cuda_autocast_op(name):
    fn, shapes = OPS[name]
    ins = [pair(*s, seed=i) for i, s in enumerate(shapes)]
    with ember.autocast("cuda"):
        e = fn(ember, ember.nn.functional, *[p[0].cuda() for p in ins])
    with ember.autocast("cpu", dtype=ember.float16):  # the CPU's values, for reference only
        ref = fn(ember, ember.nn.functional, *[p[0] for p in ins])
    assert e.is_cuda
    expected = ember.float16 if name in CUDA_LOWER else ember.float32 if name in CUDA_FP32 else None
    if expected is not None:
        assert e.dtype == expected, name
    np.testing.assert_allclose(e.float().cpu().numpy(), ref.float().numpy(), rtol=3e-2, atol=3e-2)


@pytest.mark.cuda
def test_cuda_bce_is_banned():
    a = ember.rand(3, device="cuda")
    with ember.autocast("cuda"):
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            ember.nn.functional.binary_cross_entropy(a, a)


@pytest.mark.cuda
def test_cuda_training_step_with_grad_scaler():
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(8, 16), ember.nn.ReLU(), ember.nn.Linear(16, 4)).cuda()
    opt = ember.optim.SGD(model.parameters(), lr=0.05)
    scaler = ember.amp.GradScaler("cuda", init_scale=2.0**16)
    x, y = ember.randn(32, 8, device="cuda"), ember.randint(0, 4, (32,), device="cuda")
    losses = []
    for _ in range(30):
        opt.zero_grad()
        with ember.autocast("cuda"):
            out = model(x)
            loss = ember.nn.functional.cross_entropy(out, y)
        assert out.dtype == ember.float16 and loss.dtype == ember.float32
        scaler.scale(loss).backward()
        assert model[0].weight.grad.dtype == ember.float32
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert scaler.get_scale() <= 2.0**16
    model[0].weight.grad.fill_(float("inf"))  # an inf grad skips the step and halves the scale
    before, scale = model[0].weight.detach().clone(), scaler.get_scale()
    scaler.step(opt)
    scaler.update()
    assert ember.equal(model[0].weight.detach(), before) and scaler.get_scale() == scale / 2


def test_custom_fwd_bwd():
    for mod in (ember, torch):
        seen = {}

        class MyMM(mod.autograd.Function):
            @staticmethod
            @mod.amp.custom_fwd(device_type="cpu", cast_inputs=mod.float32)
            def forward(ctx, a, b):
                seen["fwd"] = (a.dtype, mod.is_autocast_enabled("cpu"))
                ctx.save_for_backward(a, b)
                return a.mm(b)

            @staticmethod
            @mod.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad):
                seen["bwd"] = mod.is_autocast_enabled("cpu")
                a, b = ctx.saved_tensors
                return grad.mm(b.t()), a.t().mm(grad)

        class Plain(mod.autograd.Function):
            @staticmethod
            @mod.amp.custom_fwd(device_type="cpu")
            def forward(ctx, a):
                seen["plain"] = mod.is_autocast_enabled("cpu")
                return a.mm(a)

            @staticmethod
            @mod.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad):
                seen["plain_bwd"] = (mod.is_autocast_enabled("cpu"), mod.get_autocast_dtype("cpu"))
                return grad

        a = mod.ones(2, 2, dtype=mod.bfloat16, requires_grad=True)
        with mod.autocast("cpu"):
            y = MyMM.apply(a, mod.ones(2, 2))
            z = Plain.apply(mod.ones(2, 2, requires_grad=True))
        y.sum().backward()
        z.sum().backward()
        assert y.dtype == mod.float32 and a.grad.dtype == mod.bfloat16
        assert seen == {"fwd": (mod.float32, False), "bwd": False, "plain": True,
                        "plain_bwd": (True, mod.bfloat16)}
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.amp.custom_fwd(lambda: 0, device_type=3)


def test_state_is_thread_local():
    import threading
    seen = []
    with ember.autocast("cpu"):
        t = threading.Thread(target=lambda: seen.append((ember.is_autocast_enabled("cpu"),
                                                         ember.mm(ember.ones(2, 2), ember.ones(2, 2)).dtype)))
        t.start()
        t.join()
    assert seen == [(False, ember.float32)]

"""Regressions for the differential fuzzer's findings of seed 9 (nn families against torch 2.13)."""
import pytest
import torch

import ember
from conftest import assert_same, outcome


def both(fn):
    return fn(ember), fn(torch)


CONSTANTS = [0.1, 0.3, 1.7, -2.2, 2.5, -3.75, -1.48]


@pytest.mark.parametrize("value", CONSTANTS)
@pytest.mark.parametrize("layout", ["contiguous", "expand", "slice"])
def test_layer_and_group_norm_of_a_constant_slice_are_exactly_zero(value, layout):
    # The mean of a constant slice is exact (shifted sums), and x - mean comes before the scaling: torch gives 0.
    def make(m):
        x = m.full((2, 4, 6), value)
        return {"contiguous": x, "expand": m.full((1, 1, 1), value).expand(2, 4, 6), "slice": x[:, :, ::2]}[layout]

    for fn in (lambda m: m.nn.functional.layer_norm(make(m), (make(m).shape[-1],)),
               lambda m: m.nn.functional.layer_norm(make(m), make(m).shape[-2:], m.full(make(m).shape[-2:], 0.7),
                                                    m.full(make(m).shape[-2:], 0.1)),
               lambda m: m.nn.functional.group_norm(make(m), 2),
               lambda m: m.nn.functional.instance_norm(make(m).double())):
        e, t = both(fn)
        assert_same(e, t)


@pytest.mark.parametrize("value", CONSTANTS)
@pytest.mark.parametrize("training", [True, False])
def test_batch_and_group_norm_with_affine_round_as_torch(value, training):
    # torch: (x - mean) * scale + b over an expanded input (exactly b for a constant channel); group_norm with a
    # weight or bias: x * scale + (b - mean * scale) with fused multiply-adds, which leaves up to 1e-4 where b is due
    def bn(m, x):
        w, b = m.tensor([2.5, -1.3, 0.7]), m.tensor([-4.0, 0.25, 1.7])
        return m.nn.functional.batch_norm(x, m.full((3,), value), m.zeros(3), w, b, training=training)

    assert_same(*both(lambda m: bn(m, m.full((1, 3, 1), value).expand(4, 3, 5))))
    assert_same(*both(lambda m: bn(m, m.full((1, 3), value).expand(4, 3))))
    assert_same(*both(lambda m: m.nn.functional.group_norm(m.full((2, 4, 5), value), 2, m.tensor([0.7, -1.3, 2.1, 0.3]),
                                                           m.tensor([0.25, -0.1, 0.0, 1.7]))))
    assert_same(*both(lambda m: m.nn.functional.group_norm(m.full((2, 4, 5), value), 2, None, m.ones(4))))


def test_batch_norm_keeps_an_input_that_is_channels_last_but_for_size_one_dims():
    def prog(m):
        x = m.arange(24.0, dtype=m.float64).view(3, 2, 1, 4).transpose(3, 1)
        return m.nn.functional.batch_norm(x, m.zeros(4, dtype=m.float64), m.ones(4, dtype=m.float64), training=False)
    assert_same(*both(prog), rtol=1e-12)


@pytest.mark.parametrize("shape, perm", [((1, 1, 2, 4), (1, 3, 0, 2)), ((1, 2, 3, 4), (0, 3, 1, 2)),
                                         ((1, 2, 3, 4, 5), (0, 4, 1, 2, 3)), ((3, 2, 1, 4), (0, 3, 2, 1))])
def test_rms_norm_keeps_a_channels_last_input(shape, perm):
    e, t = both(lambda m: m.nn.functional.rms_norm(m.arange(float(torch.Size(shape).numel()), dtype=m.float64)
                                                   .view(shape).permute(perm), (shape[perm[-1]],), eps=1e-5))
    assert_same(e, t, rtol=1e-12)


def _pair(m, dtype, other=None):
    g = torch.Generator().manual_seed(0)
    a, b = (torch.randn(3, 37, generator=g) * 3).tolist(), (torch.randn(3, 37, generator=g) * 3).tolist()
    return m.tensor(a, dtype=getattr(m, dtype)), m.tensor(b, dtype=getattr(m, other or dtype))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op, kw", [("huber_loss", {}), ("huber_loss", {"delta": 0.5}), ("smooth_l1_loss", {}),
                                    ("smooth_l1_loss", {"beta": 0.5})])
def test_huber_and_smooth_l1_round_reduced_dtypes_as_torch(dtype, op, kw):
    # torch's kernels compute huber's float16 and smooth_l1's bfloat16 in float, the others in the dtype itself
    for reduction in ("none", "mean", "sum"):
        e, t = both(lambda m: getattr(m.nn.functional, op)(*_pair(m, dtype), reduction=reduction, **kw))
        assert_same(e, t)


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float16", "float32"), ("bfloat16", "float16")])
def test_huber_loss_has_the_input_dtype(dtypes):
    for reduction in ("none", "mean"):
        e, t = both(lambda m: m.nn.functional.huber_loss(*_pair(m, *dtypes), reduction=reduction))
        assert_same(e, t, rtol=1e-6)
    results = [outcome(lambda m=m: m.nn.functional.huber_loss(m.ones(3, dtype=m.int64), m.ones(3))) for m in (ember, torch)]
    assert type(results[0][1]) is type(results[1][1]) is RuntimeError
    assert str(results[0][1]) == str(results[1][1])


@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float16"), ("bfloat16", "float16")])
def test_bce_with_logits_has_the_target_dtype(dtypes):
    F = "binary_cross_entropy_with_logits"
    for reduction in ("none", "sum"):
        e, t = both(lambda m: getattr(m.nn.functional, F)(*_pair(m, *dtypes), reduction=reduction))
        assert_same(e, t, rtol=1e-6)
        e, t = both(lambda m: getattr(m.nn.functional, F)(*_pair(m, *dtypes), pos_weight=m.ones(37, dtype=m.float64),
                                                          weight=m.full((37,), 0.5, dtype=m.float64), reduction=reduction))
        assert_same(e, t, rtol=1e-6)


@pytest.mark.parametrize("transposed", ["input", "target"])
def test_bce_with_logits_follows_the_target_layout(transposed):
    def prog(m):
        x, y = m.arange(12.0).view(3, 4) / 6, m.arange(12.0).view(3, 4) / 12
        x, y = (x.t().contiguous().t(), y) if transposed == "input" else (x, y.t().contiguous().t())
        return m.nn.functional.binary_cross_entropy_with_logits(x, y, pos_weight=m.ones(4), reduction="none")
    assert_same(*both(prog), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.binary_cross_entropy(m.full((3,), 0.5), m.full((3,), 1.5, dtype=m.float64)),
    lambda m: m.nn.functional.binary_cross_entropy(m.full((5,), 0.5, dtype=m.float16), m.full((1, 5), 0.5)[0]),
    lambda m: m.nn.functional.binary_cross_entropy_with_logits(m.ones(3), m.ones(3, dtype=m.int64)),
    lambda m: m.nn.functional.binary_cross_entropy_with_logits(m.ones(3), m.ones(3), weight=m.ones(2, 3)),
    lambda m: m.nn.functional.soft_margin_loss(m.ones(4, dtype=m.float64), m.ones(7, 4, dtype=m.float64)),
    lambda m: m.nn.functional.soft_margin_loss(m.ones(7, 1), m.ones(4), reduction="none"),
])
def test_losses_raise_as_torch(call):
    results = [outcome(lambda m=m: call(m)) for m in (ember, torch)]
    assert type(results[0][1]) is type(results[1][1]) is RuntimeError
    assert str(results[0][1]) == str(results[1][1])


@pytest.mark.parametrize("shapes", [((2,), ()), ((), (2,)), ((4, 1), (1,)), ((3,), ())])
@pytest.mark.parametrize("dtypes", [("bfloat16", "float32"), ("float16", "float64"), ("float32", "int64")])
def test_cosine_similarity_promotes_a_0_dim_operand_as_a_tensor(shapes, dtypes):
    e, t = both(lambda m: m.nn.functional.cosine_similarity(m.full(shapes[0], 1.5, dtype=getattr(m, dtypes[0])),
                                                            m.full(shapes[1], 2, dtype=getattr(m, dtypes[1])), dim=0))
    assert_same(e, t, rtol=1e-2)


@pytest.mark.parametrize("op, padding", [("conv1d", "'same'"), ("conv1d", "'valid'"), ("conv2d", "'same'"),
                                         ("conv_transpose1d", "0"), ("conv_transpose2d", "1"), ("conv1d", "0"),
                                         ("conv2d", "(1, 0)")])
@pytest.mark.parametrize("bias_dtype", ["bfloat16", "float32", "int64"])
def test_conv_bias_of_another_dtype_is_cast_where_torch_casts(op, padding, bias_dtype):
    nd = 1 if op.endswith("1d") else 2

    def prog(m):
        x = m.arange(2.0 * 2 * 5 ** nd, dtype=m.float64).view((1, 2) + (5,) * nd) / 7
        w = m.arange(12.0 * 3 ** (nd - 1), dtype=m.float64).view((2, 2, 3) + (3,) * (nd - 1)) / 11
        b = m.tensor([1, -2], dtype=getattr(m, bias_dtype), requires_grad=bias_dtype != "int64")
        y = getattr(m.nn.functional, op)(x, w, b, padding=eval(padding))
        if not b.requires_grad:
            return y
        y.sum().backward()
        return y, b.grad

    (e, ee), (t, te) = [outcome(lambda m=m: prog(m)) for m in (ember, torch)]
    assert type(ee) is type(te)
    if te is not None:
        assert str(ee) == str(te)
        return
    for a, b in zip(e if isinstance(e, tuple) else [e], t if isinstance(t, tuple) else [t]):
        assert_same(a, b, rtol=1e-6)


@pytest.mark.parametrize("shapes", [((1, 1), (1,)), ((3, 2), (2,)), ((2,), (2,))])
def test_pairwise_distance_records_at_norm_node(shapes):
    def prog(m):
        x = m.arange(float(torch.Size(shapes[0]).numel()), dtype=m.float64).view(shapes[0]).requires_grad_()
        y = m.nn.functional.pairwise_distance(x, m.ones(shapes[1], dtype=m.float64), keepdim=True)
        y.sum().backward()
        return type(y.grad_fn).__name__, y.detach(), x.grad
    (en, ey, eg), (tn, ty, tg) = both(prog)
    assert en == tn == "NormBackward1"
    assert_same(ey, ty, rtol=1e-12)
    assert_same(eg, tg, rtol=1e-12)


@pytest.mark.parametrize("index", [slice(None), slice(None, None, 1), Ellipsis, (slice(None), 0)])
def test_setitem_of_a_number_records_fill_from_a_tensor(index):
    def prog(m):
        v = m.tensor([-0.68, -2.69], requires_grad=True)
        w = m.stack([v, v], -1)
        w[index] = -4
        w.sum().backward()
        return type(w.grad_fn).__name__, w.detach(), v.grad
    (en, ew, eg), (tn, tw, tg) = both(prog)
    assert en == tn
    assert_same(ew, tw)
    assert_same(eg, tg)


@pytest.mark.parametrize("layouts", [("expand", "t"), ("t", "contiguous"), ("contiguous", "t"), ("slice", "t")])
def test_soft_margin_loss_is_laid_out_like_its_input(layouts):
    def make(m, how):
        x = m.arange(20.0, dtype=m.float64).view(4, 5) / 7 - 1
        return {"expand": m.tensor([-1.5], dtype=m.float64).expand(4, 5), "t": x.t().contiguous().t(),
                "contiguous": x, "slice": m.arange(40.0, dtype=m.float64).view(4, 10)[:, ::2] / 9}[how]
    e, t = both(lambda m: m.nn.functional.soft_margin_loss(make(m, layouts[0]), make(m, layouts[1]), reduction="none"))
    assert_same(e, t, rtol=1e-12)


@pytest.mark.parametrize("grad", ["requires_grad", "no_grad", "plain"])
@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 1, "padding": 1}])
def test_max_pool1d_without_a_gradient_gives_a_contiguous_result(grad, kw):
    def prog(m):
        x = m.arange(24.0).view(2, 4, 3).transpose(1, 2).requires_grad_(grad != "plain")
        if grad == "no_grad":
            with m.no_grad():
                return m.nn.functional.max_pool1d(x, **kw)
        return m.nn.functional.max_pool1d(x, **kw).detach()
    assert_same(*both(prog))


@pytest.mark.parametrize("op, xs, ws, kw", [
    ("conv2d", (1, 2, 5, 5), (2, 1, 3, 3), {"groups": 2, "padding": "same"}),
    ("conv1d", (2, 2, 5), (2, 2, 3), {"padding": "same"}),
    ("conv1d", (1, 2, 12000), (2, 2, 3), {"padding": "valid"}),
    ("conv2d", (1, 2, 9, 9), (2, 2, 4, 4), {"padding": "same"}),
    ("conv2d", (1, 2, 9, 9), (2, 2, 4, 3), {"padding": "same"}),
    ("conv_transpose1d", (2, 2, 5), (2, 2, 3), {}),
    ("conv_transpose1d", (1, 2, 5), (2, 1, 3), {"groups": 2}),
    ("conv_transpose1d", (1, 2, 5), (2, 2, 3), {}),
])
def test_float32_conv_bias_dtype_follows_torchs_mkldnn_choice(op, xs, ws, kw):
    # torch's mkldnn path (grouped, batched, large or 4x4+ kernels) requires the bias's dtype; its others cast it
    def prog(m):
        channels = ws[0] if op.startswith("conv") and "transpose" not in op else ws[1] * kw.get("groups", 1)
        return getattr(m.nn.functional, op)(m.ones(xs), m.ones(ws), m.ones(channels, dtype=m.float16), **kw)
    (e, ee), (t, te) = [outcome(lambda m=m: prog(m)) for m in (ember, torch)]
    assert type(ee) is type(te)
    if te is None:
        assert_same(e, t)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hardswish_gradient_is_zero_at_minus_three(dtype):
    def prog(m):
        x = m.tensor([-3.0, 3.0, -3.75, 2.99, -2.99, 0.0], dtype=getattr(m, dtype), requires_grad=True)
        m.nn.functional.hardswish(x).sum().backward()
        return x.grad
    assert_same(*both(prog))


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear"])
@pytest.mark.parametrize("shape, perm", [((1, 2, 1, 4), (0, 3, 1, 2)), ((1, 3, 4, 2), (0, 3, 1, 2)), ((2, 3, 4, 5), (0, 1, 2, 3))])
def test_interpolate_keeps_a_channels_last_input(mode, shape, perm):
    e, t = both(lambda m: m.nn.functional.interpolate(m.arange(float(torch.Size(shape).numel())).view(shape).permute(perm),
                                                      size=(5, 7), mode=mode))
    assert_same(e, t, rtol=1e-6)


@pytest.mark.parametrize("strided", ["weight", "bias", "running_mean", None])
def test_batch_norm_with_a_strided_parameter_takes_torchs_generic_layout(strided):
    def prog(m):
        x = m.arange(8.0, dtype=m.float64).view(2, 2, 1, 2).permute(0, 3, 2, 1)
        p = {k: (m.ones(4, dtype=m.float64)[::2] if k == strided else m.ones(2, dtype=m.float64))
             for k in ("weight", "bias", "running_mean")}
        return m.nn.functional.batch_norm(x, p["running_mean"], m.ones(2, dtype=m.float64), p["weight"], p["bias"])
    assert_same(*both(prog), rtol=1e-12)

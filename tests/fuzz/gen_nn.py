"""nn op families for the differential tester: activations, softmax, normalisation, losses, convolution,
pooling, padding and resampling, through `m.nn.functional` (F), on random shapes, layouts and arguments."""
import torch

F = "m.nn.functional"
try:
    import ember.nn.functional as _ember_f  # noqa: PLC0415 - only the names are read
    F_AVAILABLE = set(dir(_ember_f))
except ImportError:
    F_AVAILABLE = set(dir(torch.nn.functional))


def _choose(g, names):
    return g.r.choice([n for n in names if n in F_AVAILABLE])
NN_FLOATS = ["float32", "float32", "float64", "float16", "bfloat16"]
ACTIVATIONS = {  # name: argument choices (strings appended after the input)
    "relu": [""], "relu6": [""], "elu": ["", ", alpha=0.5"], "selu": [""], "celu": ["", ", alpha=2.0"],
    "gelu": ["", ", approximate='tanh'"], "silu": [""], "mish": [""], "hardtanh": ["", ", -0.5, 2.0"],
    "hardswish": [""], "hardsigmoid": [""], "leaky_relu": ["", ", 0.2"], "softplus": ["", ", beta=2, threshold=1"],
    "softsign": [""], "softshrink": ["", ", 0.3"], "hardshrink": ["", ", 0.7"], "tanhshrink": [""],
    "logsigmoid": [""], "threshold": [", 0.5, -2.0"], "sigmoid": [""], "tanh": [""], "rrelu": [", training=False"],
}
LOSSES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy_with_logits",
          "binary_cross_entropy", "kl_div", "soft_margin_loss", "cross_entropy", "nll_loss"]


def _float(g, shape, dt=None):
    return g.operand(lambda u: tuple(u.shape) == tuple(shape) and u.is_floating_point(), shape=tuple(shape),
                     dtype=dt or g.r.choice(NN_FLOATS), p_existing=0.3)


def _batch(g, nd, lo=1, hi=4):
    return tuple(g.r.randint(lo, hi) for _ in range(nd))


def _reduction(g):
    return g.r.choice(["", ", reduction='sum'", ", reduction='none'", ", reduction='mean'"])


def gen_activation(g):
    r = g.r
    op = _choose(g, sorted(ACTIVATIONS))
    x = g.operand(lambda u: u.is_floating_point(), dtype=r.choice(NN_FLOATS) if not g.bad else g.dtype())
    inplace = ", inplace=True" if op in ("relu", "elu", "hardtanh", "leaky_relu", "relu6", "silu") and r.random() < 0.2 \
        else ""
    if inplace and not (x.startswith("v") and g.writable(x, strict=True)):
        inplace = ""
    return op, f"{F}.{op}({x}{r.choice(ACTIVATIONS[op])}{inplace})"


def gen_softmax(g):
    r = g.r
    op = _choose(g, ["softmax", "log_softmax", "softmin", "glu", "normalize"])
    shape = g.shape()
    x = _float(g, shape, r.choice(NN_FLOATS) if not g.bad else g.dtype())
    d = g.dim(torch.empty(shape))
    if op == "glu":
        return op, f"{F}.glu({x}, {d})"
    if op == "normalize":
        return op, f"{F}.normalize({x}, p={r.choice(['2.0', '1.0', '3'])}, dim={d})"
    dtype = r.choice(["", "", ", dtype=m.float64", ", dtype=m.float32"])
    return op, f"{F}.{op}({x}, dim={d}{dtype})"


def gen_norm(g):
    r = g.r
    op = _choose(g, ["layer_norm", "group_norm", "batch_norm", "instance_norm", "rms_norm", "local_response_norm"])
    dt = r.choice(["float32", "float64"])
    n, c = r.randint(1 if op != "batch_norm" else 2, 3), r.choice([1, 2, 4])
    shape = (n, c) + _batch(g, r.randint(0 if op not in ("instance_norm", "local_response_norm") else 1, 2))
    x = _float(g, shape, dt)
    if op in ("layer_norm", "rms_norm"):
        k = r.randint(1, len(shape))
        ns = shape[-k:] if not g.bad else shape[-k:][:-1] + (shape[-1] + 1,)
        w = f", {_float(g, ns, dt)}" if r.random() < 0.5 else ""
        b = f", {_float(g, ns, dt)}" if w and op == "layer_norm" and r.random() < 0.5 else ""
        return op, f"{F}.{op}({x}, {ns}{w}{b}, eps={r.choice(['1e-5', '0.1'])})"
    if op == "group_norm":
        groups = r.choice([d for d in (1, 2, 4) if c % d == 0] + ([3] if g.bad else []))
        aff = f", {_float(g, (c,), dt)}, {_float(g, (c,), dt)}" if r.random() < 0.5 else ""
        return op, f"{F}.group_norm({x}, {groups}{aff})"
    if op == "local_response_norm":
        return op, f"{F}.local_response_norm({x}, {r.randint(1, 4)})"
    aff = f", weight={_float(g, (c,), dt)}, bias={_float(g, (c,), dt)}" if r.random() < 0.5 else ""
    if op == "instance_norm":
        return op, f"{F}.instance_norm({x}{aff})"
    stats = r.choice(["None, None", f"m.zeros({c}, dtype=m.{dt}), m.ones({c}, dtype=m.{dt})"])
    training = "True" if stats.startswith("None") else r.choice(["True", "False"])
    return op, f"{F}.batch_norm({x}, {stats}{aff}, training={training}, momentum={r.choice(['0.1', '0.5'])})"


def gen_loss(g):
    r = g.r
    op = _choose(g, LOSSES)
    dt = r.choice(["float32", "float64"])
    if op in ("cross_entropy", "nll_loss"):
        n, c = r.randint(0 if g.bad else 1, 4), r.randint(1, 5)
        extra = _batch(g, r.choice([0, 0, 1]))
        x = _float(g, (n, c) + extra, dt)
        hi = c + (2 if g.bad else 0)
        if op == "cross_entropy" and r.random() < 0.3:
            tgt = f"{F}.softmax({_float(g, (n, c) + extra, dt)}, 1)"
        else:
            tgt = f"m.randint(0, {hi}, {(n,) + extra})"
        kw = _reduction(g) + r.choice(["", ", ignore_index=1", ", weight=m.rand(%d, dtype=m.%s)" % (c, dt)])
        if op == "cross_entropy":
            kw += r.choice(["", ", label_smoothing=0.1"])
        else:
            x = f"{F}.log_softmax({x}, 1)"
        return op, f"m.manual_seed({r.randint(0, 99)}); {{out}} = {F}.{op}({x}, {tgt}{kw})"
    shape = g.shape(max_ndim=3)
    x = _float(g, shape, dt)
    tshape = shape if not g.bad else g.broadcast_shape(shape)
    y = _float(g, tshape, dt)
    if op == "binary_cross_entropy":
        x, y = f"m.sigmoid({x})", f"m.sigmoid({y})"
    kw = _reduction(g)
    if op in ("smooth_l1_loss", "huber_loss"):
        kw += r.choice(["", ", beta=0.5" if op == "smooth_l1_loss" else ", delta=0.5"])
    if op == "kl_div":
        kw += r.choice(["", ", log_target=True"])
    if op == "binary_cross_entropy_with_logits" and shape and r.random() < 0.3:
        kw += f", pos_weight={_float(g, shape[-1:], dt)}"
    return op, f"{F}.{op}({x}, {y}{kw})"


def gen_conv(g):
    r = g.r
    op = _choose(g, ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"])
    nd = 1 if op.endswith("1d") else 2
    dt = r.choice(["float32", "float64"])
    groups = r.choice([1, 1, 2])
    cin, cout = groups * r.randint(1, 3), groups * r.randint(1, 3)
    k = _batch(g, nd, 1, 3)
    stride, dil = r.randint(1, 2), r.randint(1, 2)
    spatial = tuple(r.randint(dil * (kk - 1) + 1, 7) for kk in k)
    x = _float(g, (r.randint(1, 2), cin if not g.bad else cin + 1) + spatial, dt)
    if op.startswith("conv_transpose"):
        w = _float(g, (cin, cout // groups) + k, dt)
        pad = r.randint(0, min(k) - 1)
        outpad = r.randint(0, max(0, min(stride, dil) - 1))
        b = f", {_float(g, (cout,), dt)}" if r.random() < 0.5 else ", None"
        return op, f"{F}.{op}({x}, {w}{b}, stride={stride}, padding={pad}, output_padding={outpad}, groups={groups}, " \
                   f"dilation={dil})"
    w = _float(g, (cout, cin // groups) + k, dt)
    b = f", {_float(g, (cout,), dt)}" if r.random() < 0.5 else ", None"
    pad = r.choice([str(r.randint(0, 2)), "'same'", "'valid'"])
    if pad == "'same'":
        stride = 1
    return op, f"{F}.{op}({x}, {w}{b}, stride={stride}, padding={pad}, dilation={dil}, groups={groups})"


def gen_pool(g):
    r = g.r
    op = _choose(g, ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
                     "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "lp_pool1d"])
    nd = 1 if op.endswith("1d") else 2
    dt = r.choice(["float32", "float64"] + (["int64"] if g.bad else []))
    lead = _batch(g, r.choice([1, 2]), 1, 3)
    spatial = _batch(g, nd, 1, 7)
    x = _float(g, lead + spatial, dt)
    if op.startswith("adaptive"):
        out = tuple(r.randint(1, 4) for _ in range(nd))
        ret = ", return_indices=True" if "max" in op and r.random() < 0.3 else ""
        return op, f"{F}.{op}({x}, {out if nd > 1 else out[0]}{ret})"
    k = min(spatial) if not g.bad else max(spatial) + 3
    k = r.randint(1, max(1, k))
    pad = r.randint(0, k // 2)
    kw = f", stride={r.choice(['None', '1', '2'])}, ceil_mode={r.choice(['False', 'True'])}"
    if op == "lp_pool1d":
        return op, f"{F}.lp_pool1d({x}, {r.choice(['2', '1.5'])}, {k}, ceil_mode={r.choice(['False', 'True'])})"
    if op.startswith("max"):
        kw += f", padding={pad}, dilation={r.randint(1, 2) if k * 2 <= min(spatial) + 2 * pad else 1}"
        kw += r.choice(["", ", return_indices=True"])
    else:
        kw += f", padding={pad}, count_include_pad={r.choice(['True', 'False'])}"
    return op, f"{F}.{op}({x}, {k}{kw})"


def gen_resample(g):
    r = g.r
    op = _choose(g, ["pad", "interpolate", "pixel_shuffle", "one_hot", "embedding", "cosine_similarity",
                     "pairwise_distance", "unfold"])
    dt = r.choice(["float32", "float64"])
    if op == "pad":
        mode = r.choice(["constant", "reflect", "replicate", "circular"])
        nd = r.randint(1, 2)
        spatial = _batch(g, nd, 2, 5)
        x = _float(g, _batch(g, r.randint(1, 2), 1, 2) + spatial, dt)
        pads = [r.randint(-1 if mode == "constant" else 0, 2 if not g.bad else 6) for _ in range(2 * nd)]
        val = f", value={g.value(dt)}" if mode == "constant" else ""
        return op, f"{F}.pad({x}, {tuple(pads)}, mode='{mode}'{val})"
    if op == "interpolate":
        mode = r.choice(["nearest", "nearest-exact", "linear", "bilinear"])
        nd = 1 if mode == "linear" else r.randint(1, 2) if mode.startswith("nearest") else 2
        x = _float(g, _batch(g, 2, 1, 2) + _batch(g, nd, 1, 5), dt)
        size = tuple(r.randint(1, 7) for _ in range(nd))
        ac = f", align_corners={r.choice(['True', 'False'])}" if "linear" in mode else ""
        how = f"size={size if nd > 1 else size[0]}" if r.random() < 0.6 else \
            f"scale_factor={r.choice(['2', '0.5', '1.5'])}"
        return op, f"{F}.interpolate({x}, {how}, mode='{mode}'{ac})"
    if op == "pixel_shuffle":
        f = r.randint(1, 2)
        x = _float(g, (r.randint(1, 2), f * f * r.randint(1, 2) + (1 if g.bad else 0), r.randint(1, 3),
                       r.randint(1, 3)), dt)
        return op, f"{F}.pixel_shuffle({x}, {f})"
    if op == "one_hot":
        n = r.randint(1, 5)
        return op, f"{F}.one_hot({g.index_tensor(n, _batch(g, r.randint(0, 2), 0, 3)).replace('int32', 'int64')}, " \
                   f"{r.choice([str(n), '-1'])})"
    if op == "embedding":
        n = r.randint(1, 5)
        w = _float(g, (n, r.randint(1, 3)), dt)
        idx = g.index_tensor(n, _batch(g, r.randint(1, 2), 0, 3)).replace("-", "")
        return op, f"{F}.embedding({idx}, {w}{r.choice(['', ', padding_idx=0'])})"
    if op == "unfold":
        x = _float(g, (r.randint(1, 2), r.randint(1, 2)) + _batch(g, 2, 2, 5), dt)
        return op, f"{F}.unfold({x}, {r.randint(1, 2)}, padding={r.randint(0, 1)}, stride={r.randint(1, 2)})"
    shape = g.shape(max_ndim=3)
    x, y = _float(g, shape, dt), _float(g, g.broadcast_shape(shape), dt)
    if op == "cosine_similarity":
        return op, f"{F}.cosine_similarity({x}, {y}, dim={g.dim(torch.empty(shape))})"
    return op, f"{F}.pairwise_distance({x}, {y}, p={r.choice(['2.0', '1.0'])}, keepdim={r.choice(['True', 'False'])})"


NN_OPS = [  # (family, generator, weight), appended to gen.OPS
    ("nn.activation", gen_activation, 5),
    ("nn.softmax", gen_softmax, 3),
    ("nn.norm", gen_norm, 4),
    ("nn.loss", gen_loss, 4),
    ("nn.conv", gen_conv, 3),
    ("nn.pool", gen_pool, 3),
    ("nn.resample", gen_resample, 4),
]

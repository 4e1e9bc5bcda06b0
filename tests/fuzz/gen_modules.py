"""nn module family for the differential tester: a module built from a random seed with random constructor arguments
(both libraries draw the same initial weights from the same seed), called in train or eval mode on a random input of
a fitting shape (float32 or float64, any layout), optionally followed by a backward that reads a parameter's grad."""
try:
    import ember.nn as _ember_nn  # noqa: PLC0415 - only the names are read
    MODULES_AVAILABLE = set(dir(_ember_nn))
except ImportError:
    import torch.nn as _ember_nn
    MODULES_AVAILABLE = set(dir(_ember_nn))

DTYPES = ["float32", "float32", "float64"]


def _n(g, lo=1, hi=4):
    return g.r.randint(lo, hi)


def _flag(g, name, p=0.3):
    return f", {name}={not g.chance(1 - p)}" if g.chance(0.5) else ""


def linear(g):
    i, o = _n(g, 1, 6), _n(g, 1, 6)
    lead = tuple(_n(g) for _ in range(g.r.randint(0, 2)))
    return f"Linear({i}, {o}{_flag(g, 'bias')})", [lead + (i,)]


def bilinear(g):
    a, b, o, n = _n(g), _n(g), _n(g), _n(g)
    return f"Bilinear({a}, {b}, {o}{_flag(g, 'bias')})", [(n, a), (n, b)]


def conv(g, nd, transposed=False):
    groups = g.r.choice([1, 1, 2])
    c, o = groups * _n(g, 1, 3), groups * _n(g, 1, 3)
    k = _n(g, 1, 3)
    stride, dilation = _n(g, 1, 2), _n(g, 1, 2)
    spatial = tuple(_n(g, k * dilation, k * dilation + 4) for _ in range(nd))
    args = f"{c}, {o}, {k}, stride={stride}, dilation={dilation}, groups={groups}{_flag(g, 'bias')}"
    if transposed:
        args += f", padding={_n(g, 0, 1)}, output_padding={g.r.randint(0, max(stride, dilation) - 1)}"
    else:
        padding = g.r.choice(["0", "1", "'valid'"] + (["'same'"] if stride == 1 else []))
        mode = g.r.choice(["zeros", "zeros", "reflect", "replicate", "circular"]) if padding in ("1", "'same'") else "zeros"
        args += f", padding={padding}, padding_mode='{mode}'"
    name = f"Conv{'Transpose' if transposed else ''}{nd}d"
    batch = (_n(g, 1, 2),) if g.chance(0.8) else ()
    return f"{name}({args})", [batch + (c,) + spatial]


def batch_norm(g, nd):
    c = _n(g, 1, 4)
    momentum = g.r.choice(["0.1", "None", "0.5"])
    shape = (_n(g, 2, 4), c) + tuple(_n(g) for _ in range(nd - 1 if nd == 1 and g.chance(0.5) else nd))
    if nd == 1:
        shape = shape[:3]
    return (f"BatchNorm{nd}d({c}, momentum={momentum}{_flag(g, 'affine', 0.8)}{_flag(g, 'track_running_stats', 0.8)})",
            [shape])


def layer_norm(g):
    shape = tuple(_n(g) for _ in range(_n(g, 1, 3)))
    k = g.r.randint(1, len(shape))
    return f"LayerNorm({shape[-k:]}{_flag(g, 'elementwise_affine', 0.8)}{_flag(g, 'bias', 0.8)})", [shape]


def rms_norm(g):
    shape = tuple(_n(g) for _ in range(_n(g, 1, 3)))
    eps = g.r.choice(["None", "1e-5"])
    return f"RMSNorm({shape[-1:]}, eps={eps}{_flag(g, 'elementwise_affine', 0.8)})", [shape]


def group_norm(g):
    groups = _n(g, 1, 3)
    c = groups * _n(g, 1, 2)
    return f"GroupNorm({groups}, {c}{_flag(g, 'affine', 0.8)})", [(_n(g), c, _n(g), _n(g))]


def instance_norm(g):
    c = _n(g)
    return (f"InstanceNorm2d({c}{_flag(g, 'affine')}{_flag(g, 'track_running_stats')})",
            [(_n(g), c, _n(g, 2, 4), _n(g, 2, 4))])


def prelu(g):
    c = _n(g)
    return f"PReLU({g.r.choice([1, c])})", [(_n(g), c, _n(g))]


def attention(g):
    heads = _n(g, 1, 2)
    e = heads * _n(g, 1, 3)
    batch_first = g.chance(0.5)
    n, length = _n(g), _n(g)
    shape = (n, length, e) if batch_first else (length, n, e)
    mask = g.r.choice(["", ", need_weights=False", ", average_attn_weights=False",
                       f", attn_mask=m.ones({length}, {length}, dtype=m.bool).triu(1)"])
    return (f"MultiheadAttention({e}, {heads}, batch_first={batch_first}{_flag(g, 'bias', 0.8)})", [shape, shape, shape],
            mask, "[0]")


def encoder_layer(g):
    heads = _n(g, 1, 2)
    e = heads * _n(g, 2, 3) * 2  # LayerNorm over 2 features gives +-1 whatever the input: gradients would be noise
    args = (f"{e}, {heads}, dim_feedforward={_n(g, 2, 8)}, dropout=0.0, activation='{g.r.choice(['relu', 'gelu'])}', "
            f"batch_first=True{_flag(g, 'norm_first')}")
    return f"TransformerEncoderLayer({args})", [(_n(g), _n(g), e)]


def embedding(g):
    num, dim = _n(g, 2, 6), _n(g, 1, 4)
    pad = f", padding_idx={g.r.randint(-num, num - 1)}" if g.chance(0.4) else ""
    norm = f", max_norm={g.r.choice(['1.0', '0.5'])}" if g.chance(0.3) else ""
    idx = f"m.tensor({[g.r.randint(0, num - 1) for _ in range(_n(g, 1, 6))]})"
    return f"Embedding({num}, {dim}{pad}{norm})", [idx]


BUILDERS = [
    ("Linear", linear, 4), ("Bilinear", bilinear, 1), ("Conv1d", lambda g: conv(g, 1), 2),
    ("Conv2d", lambda g: conv(g, 2), 2), ("ConvTranspose1d", lambda g: conv(g, 1, True), 1),
    ("ConvTranspose2d", lambda g: conv(g, 2, True), 1), ("BatchNorm1d", lambda g: batch_norm(g, 1), 1),
    ("BatchNorm2d", lambda g: batch_norm(g, 2), 2), ("LayerNorm", layer_norm, 2), ("RMSNorm", rms_norm, 1),
    ("GroupNorm", group_norm, 1), ("InstanceNorm2d", instance_norm, 1), ("PReLU", prelu, 1),
    ("MultiheadAttention", attention, 2), ("TransformerEncoderLayer", encoder_layer, 1), ("Embedding", embedding, 1),
]


def gen_module(g):
    name, build, _ = g.r.choices(BUILDERS, [w for *_, w in BUILDERS])[0]
    if name not in MODULES_AVAILABLE:
        return None
    built = build(g)
    ctor, shapes = built[0], built[1]
    call_args = built[2] if len(built) > 2 else ""
    pick = built[3] if len(built) > 3 else ""
    dt = g.r.choice(DTYPES)
    inputs = [s if isinstance(s, str) else g.operand(lambda u, s=s: tuple(u.shape) == s and u.is_floating_point(),
                                                     shape=s, dtype=dt, p_existing=0.3) for s in shapes]
    mode = g.r.choice(["", ".eval()", ".train()"])
    build_src = f"m.manual_seed({g.r.randint(0, 999)}); _mod = m.nn.{ctor}.to(m.{dt}){mode}"
    call = f"_mod({', '.join(f'({x}).to(m.{dt})' if not x.startswith('m.tensor') else x for x in inputs)}{call_args}){pick}"
    if g.chance(0.35):  # backward, then the first parameter's gradient
        return (f"nn.module.{name}.grad",
                f"{build_src}; _y = {call}; _y.float().square().sum().backward(); "
                f"{{out}} = next(_mod.parameters()).grad if list(_mod.parameters()) else _y")
    if g.chance(0.2) and "Norm" in name:  # the running statistics after a call
        return f"nn.module.{name}.stats", f"{build_src}; {call}; {{out}} = _mod.running_mean"
    return f"nn.module.{name}", f"{build_src}; {{out}} = {call}"


MODULE_OPS = [("nn.module", gen_module, 4)]  # (family, generator, weight), appended to gen.OPS

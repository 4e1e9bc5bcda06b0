"""Quantized tensors for the differential tester: quantize_per_tensor / quantize_per_channel of a float32 operand, a
chain of views and copies of the result, read back as integers (int_repr), values (dequantize) or parameters, and
element ops that both libraries must refuse. Quantized values never stay in the program's namespace."""
QDTYPES = ["quint8", "qint8", "qint32"]
ZERO_POINTS = {"quint8": (0, 255), "qint8": (-128, 127), "qint32": (-1000, 1000)}
SCALES = ["0.1", "0.01", "0.25", "1.0", "0.07", "1 / 3", "1e-3", "3.7"]
READS = [".int_repr()", ".int_repr()", ".dequantize()", ".dequantize()", ".q_scale()", ".q_zero_point()",
         ".q_per_channel_scales()", ".q_per_channel_zero_points()", ".q_per_channel_axis()", ".item()"]
REFUSED = [" + 1", ".abs()", ".sum()", ".add_(1)", ".fill_(0.5)", ".float()", ".max()", " == 0", ".neg()", ".sort()",
           ".flip(0)", ".cumsum(0)", ".numpy()"]  # not .view(dtype): torch crashes (SIGSEGV)


def _view(g, t):
    """A view or copy of a tensor shaped as t (torch semantics decide which raise)."""
    r, nd = g.r, t.dim()
    d = g.dim(t)
    choices = [".clone()", ".contiguous()", ".detach()", ".flatten()", ".reshape(-1)", ".unsqueeze(0)", "[..., :1]",
               ".t()" if nd <= 2 else ".transpose(0, 1)", f".expand(2, *{tuple(t.shape)})", f".narrow({d}, 0, 1)",
               "[0]", f".movedim(0, {d})", f".unbind({d})[0]", f".split(1, {d})[0]",
               ".clone().unsqueeze_(0)", ".clone().squeeze_()", ".clone().transpose_(0, -1)"]  # in place too
    return r.choice(choices)


def gen_quantized(g):
    r = g.r
    dt = g.dtype(QDTYPES)
    x = g.operand(lambda u: str(u.dtype) == "torch.float32", dtype="float32")
    t = eval(x, dict(g.ns))  # noqa: S307 - our own expression
    lo, hi = ZERO_POINTS[dt]
    zp = r.randint(lo, hi) if not g.bad else r.choice([lo - 1, hi + 1])
    if t.dim() and r.random() < 0.35:
        axis = r.randrange(t.dim()) if not g.bad else t.dim()
        c = t.shape[axis % t.dim()]
        scales = ", ".join(r.choice(SCALES) for _ in range(c))
        zps = ", ".join(str(r.randint(lo, hi)) for _ in range(c))
        q = f"m.quantize_per_channel({x}, m.tensor([{scales}], dtype=m.float64), m.tensor([{zps}]), {axis}, m.{dt})"
    elif r.random() < 0.2:
        q = f"m.quantize_per_tensor({x}, m.tensor({r.choice(SCALES)}), m.tensor({zp}), m.{dt})"
    else:
        q = f"m.quantize_per_tensor({x}, {r.choice(SCALES)}, {zp}, m.{dt})"
    chain = "".join(_view(g, t) for _ in range(r.randint(0, 2)))
    if r.random() < 0.15:
        return "quantized-refused", f"({q}{chain}){r.choice(REFUSED)}"
    if r.random() < 0.1:  # a join with a tensor quantized otherwise (requantized to q's parameters)
        other = f"m.quantize_per_tensor({x} * 2, {r.choice(SCALES)}, {zp}, m.{dt})"
        return "quantized", f"m.{r.choice(['cat', 'stack'])}([{q}, {other}], {r.choice([0, -1])}).int_repr()"
    if r.random() < 0.15:  # copy_ into a clone: a float source is quantized with the target's parameters
        return "quantized-copy", f"{q}.clone().copy_({x} * 2).int_repr()"
    read = r.choice(READS)
    return "quantized-dequantize" if read == ".dequantize()" else "quantized", f"({q}{chain}){read}"


QUANTIZED_OPS = [("quantized", gen_quantized, 4)]  # (family, generator, weight), appended to gen.OPS

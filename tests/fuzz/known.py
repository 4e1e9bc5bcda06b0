"""Known bugs the CI fuzz run tolerates while their fixes land, and torch bugs Ember does not copy: one entry per
root cause, with a reproducer and the issue text. Remove an entry when its fix is merged (the CI run then guards it).

An entry matches a failure whose kind is in `kinds`, whose op is in `ops` and whose failing statement contains
one of `texts` (an empty texts tuple matches any statement); with `in_program`, any statement up to the failing one
(a backward fails on a statement that does not name the op at fault).
"""
import dataclasses


@dataclasses.dataclass(frozen=True)
class Known:
    kinds: tuple
    ops: tuple
    texts: tuple
    repro: str
    issue: str
    in_program: bool = False


# The float64 rounding judge (compare.rounding_only) counts what was once listed here (constant-channel batch /
# instance norm rounding, inf/nan weights meeting padded taps in torch's convolution algorithms, group_norm with an
# infinite scale) as torch-rounding where ember is at least as close to the float64 result as torch.
KNOWN = [
    Known(kinds=("value",), ops=("any", "all"), texts=("dtype=m.uint8",),
          repro="torch.any(torch.tensor([0.0, 0.5]), out=torch.empty(0, dtype=torch.uint8))  # torch: 0, ember: 1",
          issue="torch bug, not copied: all/any into a uint8 out= convert a multi-element input to uint8 first, so "
                "0.5 or 256 count as false (torch.any(tensor([0.5])) alone gives 1). Ember tests each element's "
                "truth, as the docs and the bool out= do."),
    Known(kinds=("value",), ops=("backward",), texts=("ldexp(",), in_program=True,
          repro="x = torch.tensor([1.0], requires_grad=True); torch.ldexp(x, torch.tensor(-4)).sum().backward(); "
                "x.grad  # torch: 0, ember: 0.0625",
          issue="torch bug, not copied: ldexp's backward takes 2 ** other in other's integer dtype, so a negative "
                "integer exponent gives a zero gradient (the forward is right). Ember's gradient is 2 ** other."),
    Known(kinds=("missing-error",), ops=("ldexp",), texts=("out=",),
          repro="torch.ldexp(torch.tensor([4.0], dtype=torch.float64), torch.tensor(1), "
                "out=torch.zeros(0, dtype=torch.float32))  # torch: INTERNAL ASSERT FAILED, ember: [8.]",
          issue="torch bug, not copied: ldexp into an out= of another floating dtype trips an internal assert "
                "(needs_dynamic_casting in Loops.h) where mul's out= casts. Ember casts, as mul_out does."),
    Known(kinds=("value",), ops=("median", "nanmedian"), texts=("expand(", "as_strided("), in_program=True,
          repro="torch.nanmedian(torch.tensor([-0.5], dtype=torch.bfloat16).expand(5), 0).values  "
                "# torch: 3.46e-35, ember: -0.5",
          issue="torch bug, not copied: median/nanmedian with a dim over an input whose reduced dim has stride 0 "
                "(expanded or as_strided) read past the one element (garbage or a neighbour's value). Ember's "
                "median is the repeated value."),
    Known(kinds=("value",), ops=("copysign",), in_program=True,
          texts=("log", "sqrt", "acos", "asin", "atanh", "acosh", "nan", "/", "pow", "fmod", "remainder", "erfinv"),
          repro="torch.copysign(torch.tensor([2.0]), torch.log(torch.tensor([-1.0])))  # torch: 2, ember: -2",
          issue="not a bug: copysign takes the sign bit of a NaN `other`, and which NaN an invalid operation gives is "
                "the library's (torch's vectorised log gives +NaN, the x86 default NaN is negative)."),
    Known(kinds=("value",), ops=("quantized-dequantize",), texts=("m.qint32",),
          repro="torch.quantize_per_tensor(torch.tensor([-math.inf]), 0.01, 537, torch.qint32).dequantize()  "
                "# torch: 21474830., ember: -21474842.",
          issue="torch bug, not copied: qint32 dequantization subtracts the zero point in int32, which wraps for a "
                "value saturated at the int32 limit (-2**31 - 537). Ember subtracts in float, as the definition does."),
    Known(kinds=("value",), ops=("quantized", "quantized-dequantize"),
          texts=("unsqueeze_(", "squeeze_(", "transpose_("),
          repro="q = torch.quantize_per_channel(torch.ones(2, 3), torch.ones(3), torch.zeros(3, dtype=torch.long), 1, "
                "torch.qint8); q.unsqueeze_(0); q.q_per_channel_axis()  # torch: 1, ember: 2",
          issue="torch bug, not copied: in-place view ops on a per-channel quantized tensor keep the old axis (or "
                "raise), so the axis no longer names the channel dim. Ember moves the axis with its dim."),
    Known(kinds=("spurious-error",), texts=("index_select(",),
          ops=("sparse-dense", "sparse-sum", "sparse-add", "sparse-mm", "sparse-indices", "sparse-values", "sparse-nnz",
               "sparse-repr", "sparse-coalesced"),
          repro="torch.zeros(2, 2).to_sparse(1).index_select(1, torch.tensor([5]))  # torch: nnz=0 result, ember: "
                "IndexError",
          issue="torch bug, not copied: a sparse tensor's index_select along a dense dim checks the index only "
                "against the stored values, so with no values (nnz 0) any index passes. Ember checks it as a "
                "dense index_select does, as torch does for nnz > 0."),
    Known(kinds=("value", "missing-error"), ops=("quantized", "quantized-dequantize"), texts=("unbind(", "select("),
          repro="q = torch.quantize_per_channel(torch.ones(2, 3), torch.tensor([0.1, 0.2]), torch.tensor([0, 0]), 0, "
                "torch.qint8); q.select(1, 0).q_per_channel_axis()  # torch: -1 (dequantize() then raises), ember: 0",
          issue="torch bug, not copied: selecting a dim after a per-channel tensor's axis sets the axis to -1, so "
                "the result cannot be dequantized. Ember keeps the axis, which still names the channel dim."),
    Known(kinds=("spurious-error",), ops=("take_along_dim",), texts=(),
          repro="torch.take_along_dim(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[3]]), 1)  # torch: [[2], [4]] "
                "(index 3 of 2-element rows), ember: RuntimeError",
          issue="torch bug, not copied: take_along_dim does not bounds-check its indices on the CPU (gather does), so "
                "an index past the dim gives some other element. Ember raises gather's error."),
]


def match(failure):
    """The Known entry a failure (runner.Failure) matches, or None."""
    statements = failure.program[:failure.index + 1] if failure.program else []
    for k in KNOWN:
        src = " ".join(st["src"] for st in (statements if k.in_program else statements[-1:]))
        if failure.kind in k.kinds and failure.op in k.ops and (not k.texts or any(t in src for t in k.texts)):
            return k
    return None

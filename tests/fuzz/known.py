"""Known bugs the CI fuzz run tolerates while their fixes land: one entry per root cause, with a reproducer
and the issue text. Remove an entry when its fix is merged (the CI run then guards it).

An entry matches a failure whose kind is in `kinds`, whose op is in `ops` and whose failing statement contains
one of `texts` (an empty texts tuple matches any statement).
"""
import dataclasses


@dataclasses.dataclass(frozen=True)
class Known:
    kinds: tuple
    ops: tuple
    texts: tuple
    repro: str
    issue: str


KNOWN = [
    Known(kinds=("value",), ops=("conv_transpose1d", "conv_transpose2d", "conv_transpose3d"),
          texts=("math.inf", "math.nan"),
          repro="F.conv_transpose2d(x, w, stride=2) with x of 2 samples and an inf in w: torch has nan in more places",
          issue="12: torch's mkldnn transposed convolution (batched, grouped or large inputs) gives nan where zeros "
                "meet an inf/nan weight in more places than oneDNN's backward-data primitive Ember runs"),
    Known(kinds=("value",), ops=("conv1d", "conv2d", "conv3d"), texts=("math.inf", "math.nan"),
          repro="F.conv1d(x, w, padding=2, dilation=2, groups=2) with an inf in w: torch's direct kernel skips the "
                "padded taps (the bias alone) where oneDNN's multiplies them (0 * inf = nan)",
          issue="12: which padded taps meet an inf/nan weight depends on the convolution algorithm torch picks"),
    Known(kinds=("value",), ops=("instance_norm", "batch_norm"), texts=(),
          repro="F.instance_norm of a channel of equal values, with weight and bias: a last-bits difference from b",
          issue="12: torch's fused normalisation formula rounds a constant channel differently (~1e-4 where the "
                "result is the bias); copying it broke the nn seed tests' 1e-5 comparison"),
    Known(kinds=("value",), ops=("group_norm",), texts=("math.inf", "math.nan"),
          repro="F.group_norm(x, 4, w) with an inf in w: torch's x * scale + (b - mean * scale) gives -inf where "
                "Ember's (x - mean) * scale + b gives nan, and the reverse",
          issue="12: the same fused formula with an infinite scale"),
]


def match(failure):
    """The Known entry a failure (runner.Failure) matches, or None."""
    src = failure.program[failure.index]["src"] if failure.program else ""
    for k in KNOWN:
        if failure.kind in k.kinds and failure.op in k.ops and (not k.texts or any(t in src for t in k.texts)):
            return k
    return None

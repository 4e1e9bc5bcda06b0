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


# Empty: the float64 rounding judge (compare.rounding_only) counts what was listed here (constant-channel batch /
# instance norm rounding, inf/nan weights meeting padded taps in torch's convolution algorithms, group_norm with an
# infinite scale) as torch-rounding where ember is at least as close to the float64 result as torch.
KNOWN = []


def match(failure):
    """The Known entry a failure (runner.Failure) matches, or None."""
    src = failure.program[failure.index]["src"] if failure.program else ""
    for k in KNOWN:
        if failure.kind in k.kinds and failure.op in k.ops and (not k.texts or any(t in src for t in k.texts)):
            return k
    return None

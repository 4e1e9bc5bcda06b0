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
    Known(("value",), ("arange",), ("dtype=m.float16",), "ember.arange(0, 70000, dtype=ember.float16)[32785]",
          "core: float16 arange rounds values past 32768 differently (32800 where torch gives 32768)"),
    Known(("value",), ("randn", "randn_like"), (), "ember.manual_seed(67); ember.randn(20, dtype=ember.float16)",
          "random streams: half-precision normal draws of a size that is not a multiple of 16 differ from torch's in "
          "the last block (multiples of 16, rand, *_like layouts and fill order match)"),
    Known(("stride",), ("getitem",), (),
          "ember.arange(24).reshape(3, 1, 2, 4).permute(3, 1, 0, 2)[1:, ember.tensor([[False, True, False]])].stride()",
          "indexing: a bool mask after a slice of a permuted tensor gives the right values in another layout"),
    Known(("value",), ("sum",), ("dtype=m.bfloat16", "dtype=m.float16"),
          "ember.tensor([[-2, 3, 2**63-1, -4], [-2**63, -3, 0, -3]]).sum(dtype=ember.bfloat16)",
          "numerics: a half-precision sum(dtype=) of values that cancel (+-2**63) depends on summation order; torch "
          "adds in float across vector lanes (cascade_sum), Ember in double"),
    Known(("value",), ("var_mean", "std_mean"), (), "ember.var_mean(ember.tensor([math.inf] * 3))",
          "numerics: the mean of var_mean/std_mean over infs is inf; torch's Welford update gives nan"),
]


def match(failure):
    """The Known entry a failure (runner.Failure) matches, or None."""
    src = failure.program[failure.index]["src"] if failure.program else ""
    for k in KNOWN:
        if failure.kind in k.kinds and failure.op in k.ops and (not k.texts or any(t in src for t in k.texts)):
            return k
    return None

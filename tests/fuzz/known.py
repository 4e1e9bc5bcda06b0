"""Known bugs the CI fuzz run tolerates while their fixes land (each: a root-cause reproducer and its issue).

An entry matches a failure of the same kind whose op is in `ops` and whose failing statement or message contains
`text`. Keep this list small: remove an entry when its fix is merged (the CI run then guards it).
"""
import dataclasses


@dataclasses.dataclass(frozen=True)
class Known:
    kind: str  # a kind of compare.FAILING / LISTED, or "probe-crash", "probe-type", "probe-raise"
    ops: tuple
    text: str
    repro: str
    issue: str


KNOWN = [
]


def match(failure):
    """The Known entry a failure (runner.Failure or probes result) matches, or None."""
    src = failure.program[failure.index]["src"] if failure.index < len(failure.program) else ""
    for k in KNOWN:
        if k.kind == failure.kind and failure.op in k.ops and (k.text in src or k.text in failure.message):
            return k
    return None

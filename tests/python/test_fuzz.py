"""Fixed-budget differential fuzzing against torch (tests/fuzz; the long run is scripts/fuzz.sh).

Random programs and the bad-input probe set run on ember and torch in child processes. A crash, a hang or a wrong
value (value, dtype, shape, strides, aliasing) fails, unless tests/fuzz/known.py lists its root cause. Exception
types that differ, and errors raised on one side only, are counted and printed; MAX_RAISING_MISMATCHES makes them
fail above a count (the acceptance target is 0).
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz"))
import compare  # noqa: E402
import probes  # noqa: E402
import runner  # noqa: E402

SEED = 0
PROGRAMS = 2000
TIMEOUT_S = 3  # seconds a program or probe may take before it counts as a hang
JOBS = 2
MAX_RAISING_MISMATCHES = None  # None: count and print only; set to 0 once exception types match torch's


def _check(n, failures, title):
    runner.summarise(n, failures, title=title)
    bad = [f for f in failures if f.kind in compare.FAILING and not f.known]
    lines = [f"{f.kind} in {f.op}: {f.program[f.index]['src'] if f.program else ''}\n    {f.message[:300]}"
             for f in runner.distinct(bad)]
    assert not bad, f"{len(bad)} unknown crashes/hangs/wrong values; distinct:\n" + "\n".join(lines)
    raising = [f for f in failures if f.kind in compare.RAISING]
    if MAX_RAISING_MISMATCHES is not None:
        assert len(raising) <= MAX_RAISING_MISMATCHES, runner.distinct(raising)


def test_programs():
    _check(*runner.run_programs(SEED, PROGRAMS, JOBS, TIMEOUT_S), "programs")


def test_probes():
    _check(*probes.run_probes(JOBS, TIMEOUT_S), "probes")


def _st(src, out="r"):
    return {"src": src, "out": out, "op": "probe"}


@pytest.mark.release_build
def test_the_runner_detects_crashes_hangs_and_differences():
    reqs = [(0, ("run", [_st("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")])),
            (1, ("run", [_st("import time; time.sleep(30)")])),
            (2, ("run", [_st("r = m.tensor([1, 2]) + 1")]))]
    res = runner.run_children("ember", reqs, timeout_s=2)
    assert res[0][:2] == ("crash", "signal SIGSEGV") and res[1][0] == "hang" and res[2][0] == "ok"
    program = [_st("r = m.tensor([1., 2.]) * (3 if m.__name__ == 'ember' else 2)")]
    e_snaps = runner.run_children("ember", [(0, ("run", program))], 20)[0][1]
    t_snaps = runner.run_children("torch", [(0, ("run", program))], 20)[0][1]
    assert compare.compare(e_snaps, t_snaps)[:2] == ("value", 0)
    assert compare.compare(t_snaps, t_snaps) is None

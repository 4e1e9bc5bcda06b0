"""Differential fuzzing of ember against torch.

    python -m tests.fuzz --seed S --programs N --jobs 2 [--probes] [--minimise K]

Prints a summary (programs run, crashes, hangs, wrong values, exception-type mismatches, by op), minimises the
first failure of each kind and op and saves it as a reproducer under tests/fuzz/found/. Exits 1 on a crash, hang
or wrong value that tests/fuzz/known.py does not list.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import probes  # noqa: E402
import runner  # noqa: E402


def report(failures, minimise, timeout_s, only=None, log=print):
    chosen = [f for f in runner.distinct(failures) if not only or f.kind in only]
    for n, f in enumerate(sorted(chosen, key=lambda f: f.known is not None)):  # unknown ones first
        if n < minimise:
            f = runner.minimise(f, timeout_s)
        path = runner.write_reproducer(f, n)
        tag = f" [known: {f.known.issue[:60]}]" if f.known else ""
        log(f"- {f.kind} in {f.op}{tag}: {path}\n    {f.program[f.index]['src'] if f.program else ''}\n    "
            + f.message.strip().replace("\n", "\n    ")[:600])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--programs", type=int, default=1000)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=20, help="seconds a program may take")
    p.add_argument("--probes", action="store_true", help="also run the bad-input probe set")
    p.add_argument("--minimise", type=int, default=30, help="distinct failures to minimise (others saved as is)")
    p.add_argument("--only", default="", help="comma-separated kinds to save reproducers for (default: all)")
    p.add_argument("--families", default="", help="comma-separated op family prefixes to generate (default: all)")
    a = p.parse_args(argv)
    os.environ["EMBER_FUZZ_FAMILIES"] = a.families  # read by the generating children
    only = set(filter(None, a.only.split(",")))
    failures = []
    if a.programs:
        n, fails = runner.run_programs(a.seed, a.programs, a.jobs, a.timeout)
        runner.summarise(n, fails)
        report(fails, a.minimise, a.timeout, only)
        failures += fails
    if a.probes:
        n, fails = probes.run_probes(a.jobs, a.timeout)
        runner.summarise(n, fails, title="probes")
        report(fails, 0, a.timeout, only)
        failures += fails
    bad = [f for f in failures if f.kind in compare.FAILING and not f.known]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs requests in child processes (crash and hang safe), and the differential program tester on top."""
import collections
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402
import known  # noqa: E402

STARTUP_S = 60  # importing torch on a loaded machine (the per-request timeout starts once it is ready)
FOUND = os.path.join(HERE, "found")


def run_children(modname, requests, timeout_s):
    """Runs [(index, request)] in `python child.py modname` processes, in order; a crash or hang ends the child,
    is charged to the request it was running, and a new child goes on with the rest.
    Returns {index: ("ok", result) | ("crash", signal or code, stderr tail) | ("hang", seconds)}."""
    results, pending = {}, list(requests)
    while pending:
        err = tempfile.TemporaryFile()
        proc = subprocess.Popen([sys.executable, os.path.join(HERE, "child.py"), modname], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err, cwd=HERE)
        try:
            proc.stdin.write(pickle.dumps(pending))
            proc.stdin.close()
        except BrokenPipeError:
            pass
        fd, buf, deadline = proc.stdout.fileno(), b"", time.monotonic() + STARTUP_S
        while True:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:  # hang: charge the running request
                proc.kill()
                proc.wait()
                results[pending[0][0]] = ("hang", timeout_s)
                pending = pending[1:]
                break
            chunk = os.read(fd, 1 << 20)
            if not chunk:  # the child ended: a crash unless everything was answered
                rc = proc.wait()
                if pending:
                    err.seek(0)
                    tail = err.read().decode(errors="replace")[-600:]
                    sig = f"signal {signal.Signals(-rc).name}" if rc < 0 else f"exit {rc}"
                    results[pending[0][0]] = ("crash", sig, tail)
                    pending = pending[1:]
                break
            buf += chunk
            while len(buf) >= 8 and len(buf) >= 8 + struct.unpack("<Q", buf[:8])[0]:
                n = struct.unpack("<Q", buf[:8])[0]
                what, index, res = pickle.loads(buf[8: 8 + n])
                buf = buf[8 + n:]
                deadline = time.monotonic() + timeout_s
                if what == "ready":
                    continue
                results[index] = ("ok", res)
                assert pending[0][0] == index
                pending = pending[1:]
        proc.stdout.close()
        err.close()
    return results


class Failure:
    def __init__(self, kind, seed, program, index, message):
        if program and index >= len(program):  # a difference in the final state (writes through views)
            index, message = len(program) - 1, "after the last statement: " + message
        self.kind, self.seed, self.program, self.index, self.message = kind, seed, program, index, message
        self.op = program[index]["op"] if program else "?"
        self.known = known.match(self)

    def signature(self):
        return self.kind, self.op, self.message.split(":")[0] if self.kind == "exception-type" else ""


def float64_reference(program, timeout_s):
    """The program's snapshots in torch with float64 for every floating dtype (compare.float64_program), or None."""
    res = run_children("torch", [(0, ("ref64", program))], timeout_s)[0]
    return res[1] if res[0] == "ok" else None


def judge(seed, program, t_snaps, e_res, timeout_s=20):
    """A Failure for one program, or None. A floating value that differs is judged against the float64 reference:
    where ember is at least as close to it as torch (or the difference is one of torch's vector-width NaN lanes),
    the failure is counted as torch-rounding."""
    if e_res[0] == "crash":
        return Failure("crash", seed, program, len(program) - 1, f"{e_res[1]}\n{e_res[2]}")
    if e_res[0] == "hang":
        return Failure("hang", seed, program, len(program) - 1, f"no answer in {e_res[1]} s")
    d = compare.compare(e_res[1], t_snaps, program)
    lanes = d and d[0] == "value" and compare.nan_lanes(e_res[1], t_snaps, program, d[1])
    if lanes:
        return Failure(compare.ROUNDING, seed, program, d[1], f"torch's {lanes} NaN lanes: " + d[2])
    reference = float64_reference(program, timeout_s) if d and d[0] == "value" else None
    if reference and compare.rounding_only(e_res[1], t_snaps, reference, d[1], program):
        return Failure(compare.ROUNDING, seed, program, d[1], d[2])
    return Failure(d[0], seed, program, d[1], d[2]) if d else None


def locate(fail, timeout_s):
    """A crash or hang is charged to a program; find its statement by running prefixes (one child each)."""
    if fail.kind not in ("crash", "hang"):
        return fail
    prog = fail.program
    for i in range(len(prog)):
        res = run_children("ember", [(0, ("run", prog[: i + 1]))], timeout_s)[0]
        if res[0] != "ok":
            fail.index, fail.op = i, prog[i]["op"]
            fail.message = f"{res[1]}\n{res[2]}" if res[0] == "crash" else fail.message
            return fail
    fail.message += "\n(does not reproduce alone: an earlier program in its batch may have corrupted memory)"
    return fail


def reproduces(fail, program, timeout_s, torch_run):
    """Does `program` still fail the same way, at the same statement text?"""
    e = run_children("ember", [(0, ("run", program))], timeout_s)[0]
    f = judge(fail.seed, program, torch_run(program), e, timeout_s)
    if f is None or f.kind != fail.kind:
        return None
    f = locate(f, timeout_s)
    return f if program[f.index]["src"] == fail.program[fail.index]["src"] else None


def minimise(fail, timeout_s):
    """Drops statements while the same failure persists (torch runs in this process: it does not crash)."""
    import torch  # noqa: PLC0415 - only minimisation needs torch here
    from child import run_program  # noqa: PLC0415

    def torch_run(prog):
        return run_program(torch, prog)
    prog = fail.program[: fail.index + 1]
    best = reproduces(fail, prog, timeout_s, torch_run) or fail
    changed = True
    while changed:
        changed = False
        for j in range(len(prog) - 2, -1, -1):
            cand = prog[:j] + prog[j + 1:]
            f = reproduces(fail, cand, timeout_s, torch_run)
            if f:
                prog, best, changed = cand, f, True
                break
    best.program = prog
    return best


def write_reproducer(fail, n):
    os.makedirs(FOUND, exist_ok=True)
    path = os.path.join(FOUND, f"{fail.kind}_{fail.op}_{n}.py")
    first = fail.message.strip().splitlines()[0] if fail.message.strip() else ""
    first = first[:150].encode("unicode_escape").decode("ascii").replace('"', '\\"')  # a valid docstring line
    with open(path, "w") as f:
        f.write(f'"""Fuzz reproducer (seed {fail.seed}): {fail.kind} at statement {fail.index} ({fail.op}): '
                f'{first}\n\nRun: python {os.path.relpath(path)}   (runs torch, then ember; prints what '
                f'differs)\n"""\nimport os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname('
                f'os.path.abspath(__file__)), ".."))\nfrom repro import main  # noqa: E402\n\nPROGRAM = [\n')
        for st in fail.program:
            f.write(f"    {st!r},\n")
        f.write("]\n\nif __name__ == \"__main__\":\n    main(PROGRAM)\n")
    return path


def _chunks(seeds, size):
    return [seeds[i: i + size] for i in range(0, len(seeds), size)]


def run_programs(seed, n, jobs=2, timeout_s=20, chunk=4000, log=print):
    """Generates and runs n programs (seeds seed*10**7 + i); returns (count, failures)."""
    seeds = [seed * 10 ** 7 + i for i in range(n)]

    def job(part):
        t_res = run_children("torch", [(s, ("gen", s)) for s in part], timeout_s)
        progs = {s: r[1] for s, r in t_res.items() if r[0] == "ok"}
        e_res = run_children("ember", [(s, ("run", progs[s][0])) for s in part if s in progs], timeout_s)
        fails = []
        for s in part:
            if s in progs:
                f = judge(s, progs[s][0], progs[s][1], e_res[s], timeout_s)
                if f:
                    fails.append(locate(f, timeout_s))
            else:
                fails.append(Failure("generator", s, [], 0, f"torch side: {t_res[s]}"))
        return fails
    failures = []
    start = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        for fails in pool.map(job, _chunks(seeds, min(chunk, max(1, n // jobs + 1)))):
            failures += fails
    log(f"{n} programs in {time.monotonic() - start:.0f} s")
    return n, failures


def summarise(n, failures, log=print, title="programs"):
    by_kind = collections.Counter(f.kind for f in failures)
    wrong = sum(by_kind[k] for k in compare.WRONG)
    log(f"{title} run: {n}")
    log(f"  crashes: {by_kind['crash']}  hangs: {by_kind['hang']}  wrong values (value/dtype/shape/stride/alias/type): "
        f"{wrong}  exception-type mismatches: {by_kind['exception-type']}")
    log(f"  raises on one side only: torch only {by_kind['missing-error']} (+{by_kind['lenient']} argument-type "
        f"TypeErrors), ember only {by_kind['spurious-error']}  grad_fn names: {by_kind['grad_fn']}  "
        f"torch side/generator: {by_kind['torch-side'] + by_kind['generator']}")
    log(f"  torch rounding (values differ, ember at least as close to float64 as torch): {by_kind[compare.ROUNDING]}")
    log(f"  of which known (tests/fuzz/known.py): {sum(1 for f in failures if f.known)}")
    table = collections.Counter((f.kind, f.op) for f in failures)
    for (kind, op), c in sorted(table.items(), key=lambda kv: (-kv[1], kv[0])):
        log(f"    {kind:15s} {op:22s} {c}")


def distinct(failures):
    """The first failure of each signature (kind, op, exception types)."""
    seen = {}
    for f in failures:
        seen.setdefault(f.signature(), f)
    return list(seen.values())

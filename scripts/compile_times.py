"""CPU seconds each translation unit of the library takes to compile (ccache bypassed), slowest first.

    python scripts/compile_times.py [BUILD_DIR] [-j JOBS]   # default build/times (configured here when missing), 1 job

CPU time (user + system of the compiler) is steady on a shared machine where wall time is not, and each compiler's
own time is counted, so several jobs at once measure the same; the clean build's wall time on N cores is about the
total divided by N, but never below the slowest unit.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("build", nargs="?", default=os.path.join(root, "build", "times"))
parser.add_argument("-j", "--jobs", type=int, default=1)
opts = parser.parse_args()
build = os.path.abspath(opts.build)
if not os.path.exists(os.path.join(build, "compile_commands.json")):
    subprocess.run(["cmake", "-S", root, "-B", build, "-G", "Ninja", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                    "-DEMBER_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}"], check=True, stdout=subprocess.DEVNULL)


def is_pch(entry):
    return "-x c++-header" in entry["command"]


# Precompiled headers first: the units that include one start once all are built.
pending = sorted(json.load(open(os.path.join(build, "compile_commands.json"))), key=lambda e: not is_pch(e))
running = {}  # pid -> (process, source file, entry)
times = []
while pending or running:
    while pending and len(running) < opts.jobs and (is_pch(pending[0]) or not any(is_pch(e) for *_, e in running.values())):
        entry = pending.pop(0)
        args = [a for a in shlex.split(entry["command"]) if not a.endswith("ccache")]
        process = subprocess.Popen(args, cwd=entry["directory"])
        running[process.pid] = (process, entry["file"], entry)
    pid, status, usage = os.wait4(-1, 0)  # the compiler's own CPU time, with its children (cc1plus, cicc, ptxas)
    if pid not in running:
        continue
    process, name, entry = running.pop(pid)
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    if process.returncode != 0:
        raise SystemExit(f"compiling {name} failed")
    target = entry["command"].split(" -o CMakeFiles/")[-1].split(".dir/")[0]
    times.append((usage.ru_utime + usage.ru_stime, os.path.relpath(name, root), target))
times.sort(reverse=True)
for cpu, name, _ in times:
    print(f"{cpu:7.1f} s  {name}")
for target in sorted({t for *_, t in times}):
    unit_times = [cpu for cpu, _, t in times if t == target]
    print(f"{target}: {sum(unit_times):.0f} s CPU over {len(unit_times)} units")
total = sum(t for t, *_ in times)
print(f"total {total:.0f} s CPU over {len(times)} units; slowest {times[0][0]:.0f} s; "
      f"2-core estimate {max(total / 2, times[0][0]):.0f} s")

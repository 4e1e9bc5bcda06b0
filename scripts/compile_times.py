"""CPU seconds each translation unit of the library takes to compile (ccache bypassed), slowest first.

    python scripts/compile_times.py [BUILD_DIR]     # default build/times; configured here when missing

CPU time (user + system of the compiler) is steady on a shared machine where wall time is not; the clean
build's wall time on N cores is about the total divided by N, but never below the slowest unit.
"""
import json
import os
import resource
import shlex
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "times"))
if not os.path.exists(os.path.join(build, "compile_commands.json")):
    subprocess.run(["cmake", "-S", root, "-B", build, "-G", "Ninja", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
                   check=True, stdout=subprocess.DEVNULL)
times = []
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    args = [a for a in shlex.split(entry["command"]) if not a.endswith("ccache")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, cwd=entry["directory"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    times.append((cpu, os.path.relpath(entry["file"], root)))
times.sort(reverse=True)
for cpu, name in times:
    print(f"{cpu:7.1f} s  {name}")
total = sum(t for t, _ in times)
print(f"total {total:.0f} s CPU over {len(times)} units; slowest {times[0][0]:.0f} s; "
      f"2-core estimate {max(total / 2, times[0][0]):.0f} s")

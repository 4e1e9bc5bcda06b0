"""One thread pool per process: Ember's work must not slow torch's in the same process.

Times a small MLP step (batch 128, 784-512-512-10) in torch and in Ember, alone and interleaved.
Ember's workers sleep when idle and its BLAS is serial, so it adds no spinning threads; torch's
OpenMP workers spin after each parallel region and slow whatever runs next on the same cores.
The run repeats under OMP_WAIT_POLICY=PASSIVE (torch's workers then sleep too) to show that.

Then Python threads, in both libraries: the longest pause a ticking Python thread sees while another
thread runs one 2048x2048 product (kernels run without the GIL), and the throughput of four threads
doing 256x256 products over one thread's (each library's pool at one thread, hashlib for scale).
"""
import hashlib
import os
import subprocess
import sys
import threading
import time

import torch

import ember
from common import median_time


def main():
    torch.set_num_threads(ember.get_num_threads())
    tw = [torch.randn(784, 512), torch.randn(512, 512), torch.randn(512, 10)]
    ew = [ember.randn(784, 512), ember.randn(512, 512), ember.randn(512, 10)]
    tx, ex = torch.randn(128, 784), ember.randn(128, 784)

    def torch_step():
        h = torch.relu(tx @ tw[0])
        h = torch.relu(h @ tw[1])
        return (h @ tw[2]).sum()

    def ember_step():
        h = ember.relu(ex @ ew[0])
        h = ember.relu(h @ ew[1])
        return (h @ ew[2]).sum()

    t_alone = median_time(torch_step, repeat=9, min_time=0.2)
    e_alone = median_time(ember_step, repeat=9, min_time=0.2)
    pair = median_time(lambda: (ember_step(), torch_step()), repeat=9, min_time=0.4)
    policy = os.environ.get("OMP_WAIT_POLICY", "default")
    print(f"[OMP_WAIT_POLICY={policy}] MLP step alone: torch {t_alone * 1e6:7.1f} us, ember {e_alone * 1e6:7.1f} us "
          f"(ember speed ratio {t_alone / e_alone:.2f}x); interleaved pair {pair * 1e6:7.1f} us = "
          f"{pair / (t_alone + e_alone):.2f}x the two alone (1.00 = no interference)")
    if "OMP_WAIT_POLICY" not in os.environ:
        # Ember's workers sleep when idle; torch's OpenMP workers spin. Show the pair without the spin.
        subprocess.run([sys.executable, __file__], env=dict(os.environ, OMP_WAIT_POLICY="PASSIVE"), check=True)


def longest_pause(work):
    """(longest pause of a ticking Python thread while work() runs, work's time), in seconds."""
    stop, ticks = threading.Event(), []
    ticker = threading.Thread(target=lambda: [ticks.append(time.perf_counter()) for _ in iter(stop.is_set, True)])
    ticker.start()
    time.sleep(0.02)
    start = time.perf_counter()
    work()
    elapsed = time.perf_counter() - start
    stop.set()
    ticker.join()
    return max(b - a for a, b in zip(ticks, ticks[1:])), elapsed


def threads_gain(task, items, nthreads=4):
    """Best-of-3 time of one thread running `items` tasks over `nthreads` threads sharing them."""
    def run(n):
        threads = [threading.Thread(target=lambda k=k: [task(k) for _ in range(items // n)]) for k in range(n)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - start

    run(nthreads)
    return min(run(1) for _ in range(3)) / min(run(nthreads) for _ in range(3))


def python_threads():
    for name, lib in (("torch", torch), ("ember", ember)):
        m = lib.rand(2048, 2048)
        m @ m
        pause, elapsed = min(longest_pause(lambda: m @ m) for _ in range(3))
        print(f"{name}: longest pause of another Python thread during a 2048^3 product: {pause * 1e3:6.1f} ms "
              f"(the product: {elapsed * 1e3:6.1f} ms)")
    data = b"x" * (1 << 22)
    print(f"four threads over one: hashlib {threads_gain(lambda k: hashlib.sha256(data).digest(), 24):.2f}x", end="")
    for name, lib in (("torch", torch), ("ember", ember)):
        threads = lib.get_num_threads()
        lib.set_num_threads(1)
        mats = [lib.rand(256, 256) for _ in range(4)]
        print(f", {name} 256^3 products {threads_gain(lambda k: mats[k] @ mats[k], 96):.2f}x", end="")
        lib.set_num_threads(threads)
    print()


if __name__ == "__main__":
    main()
    if "OMP_WAIT_POLICY" not in os.environ:
        python_threads()

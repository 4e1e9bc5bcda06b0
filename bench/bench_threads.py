"""One thread pool per process: Ember's work must not slow torch's in the same process.

Times a small MLP step (batch 128, 784-512-512-10) in torch and in Ember, alone and interleaved.
Ember's workers sleep when idle and its BLAS is serial, so it adds no spinning threads; torch's
OpenMP workers spin after each parallel region and slow whatever runs next on the same cores.
The run repeats under OMP_WAIT_POLICY=PASSIVE (torch's workers then sleep too) to show that.
"""
import os
import subprocess
import sys

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


if __name__ == "__main__":
    main()

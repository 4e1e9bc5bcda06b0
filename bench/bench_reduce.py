"""Reductions: sum and mean of 16M float32, the sum of a transposed 4096x4096 float32, softmax.

Prints ember's speed as a ratio to torch's (higher is better). Targets (issue 3): at least 1.0x.
"""
import torch

import ember
from common import compare, median_time

N = 16 * 1024 * 1024


def main():
    torch.set_num_threads(ember.get_num_threads())
    env = {"ember": ember, "torch": torch, "ea": ember.rand(N), "ta": torch.rand(N),
           "eT": ember.rand(4096, 4096).t(), "tT": torch.rand(4096, 4096).t(),
           "e2": ember.rand(4096, 1000), "t2": torch.rand(4096, 1000)}
    kw = dict(globals=env, repeat=3, min_time=0.1)
    compare("sum, 16M f32", "ea.sum()", "ta.sum()", **kw)
    # The limit for sum: reading 64 MB. Both libraries stream it at the cores' load bandwidth.
    gbs = {lib: 4 * N / median_time(f"{x}.sum()", **kw) / 1e9 for lib, x in [("ember", "ea"), ("torch", "ta")]}
    print(f"  sum reads {gbs['ember']:.1f} GB/s (torch {gbs['torch']:.1f} GB/s)")
    compare("mean, 16M f32", "ea.mean()", "ta.mean()", **kw)
    compare("sum of transposed 4096^2 f32", "eT.sum()", "tT.sum()", **kw)
    compare("sum(dim=-1) of (4096, 1000)", "e2.sum(-1)", "t2.sum(-1)", **kw)
    compare("sum(dim=0) of (4096, 1000)", "e2.sum(0)", "t2.sum(0)", **kw)
    compare("amax(dim=-1) of (4096, 1000)", "e2.amax(-1)", "t2.amax(-1)", **kw)
    compare("softmax(dim=-1) of (4096, 1000)", "ember.softmax(e2, -1)", "torch.softmax(t2, -1)", **kw)
    compare("log_softmax(dim=-1) of (4096, 1000)", "ember.log_softmax(e2, -1)", "torch.log_softmax(t2, -1)", **kw)


if __name__ == "__main__":
    main()

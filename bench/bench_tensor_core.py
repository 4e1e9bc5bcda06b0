"""Tensor core: Python overhead of creation and views, and a transposing copy at memory speed.

Prints ember's speed as a ratio to torch's (higher is better). Targets (issue 2): overhead ops at
most 0.5x torch's time (ratio >= 2), x.T.contiguous() on 4096x4096 float32 at least torch's speed.
"""
import numpy as np
import torch

import ember
from common import compare, fmt, median_time


def copy_bandwidth_gbs(n=4096 * 4096):
    """Plain memcpy bandwidth (bytes read + written per second) measured with numpy."""
    src = np.ones(n, dtype=np.float32)
    dst = np.empty_like(src)
    t = median_time(lambda: np.copyto(dst, src), min_time=0.3)
    return 2 * src.nbytes / t / 1e9


def main():
    torch.set_num_threads(ember.get_num_threads())
    print(f"threads: ember {ember.get_num_threads()}, torch {torch.get_num_threads()}")
    ratios = {}
    env = {"ember": ember, "torch": torch, "xe": ember.zeros(4, 4), "xt": torch.zeros(4, 4)}
    micro = [
        ("zeros(1)", "ember.zeros(1)", "torch.zeros(1)"),
        ("empty(3, 4)", "ember.empty(3, 4)", "torch.empty(3, 4)"),
        ("tensor([1., 2.])", "ember.tensor([1.0, 2.0])", "torch.tensor([1.0, 2.0])"),
        ("x.shape", "xe.shape", "xt.shape"),
        ("x[0]", "xe[0]", "xt[0]"),
        ("x.T", "xe.T", "xt.T"),
        ("x.view(16)", "xe.view(16)", "xt.view(16)"),
        ("x.transpose(0, 1)", "xe.transpose(0, 1)", "xt.transpose(0, 1)"),
        ("x[1:, None, ::2]", "xe[1:, None, ::2]", "xt[1:, None, ::2]"),
    ]
    for name, e_stmt, t_stmt in micro:
        ratios[name] = compare(name, e_stmt, t_stmt, globals=env)

    n = 4096
    be, bt = ember.randn(n, n), torch.randn(n, n)
    ratios["x.T.contiguous() 4096^2"] = compare("x.T.contiguous() 4096x4096 f32", lambda: be.T.contiguous(),
                                               lambda: bt.T.contiguous(), repeat=5, min_time=0.3)
    t = median_time(lambda: be.T.contiguous(), min_time=0.3)
    moved = 2 * n * n * 4
    bw = copy_bandwidth_gbs()
    print(f"  ember transposing copy: {moved / t / 1e9:.1f} GB/s; machine copy bandwidth (numpy memcpy): {bw:.1f} GB/s")
    print("\nsummary (speed ratio, higher is better):")
    for k, v in ratios.items():
        print(f"  {k:28s} {v:6.2f}x")


if __name__ == "__main__":
    main()

"""Matmul: float32 GFLOP/s at 256, 1024, 4096 (ratio to torch, % of the machine's FMA peak) and
bfloat16 at 1024. Targets (issue 3): float32 at least 0.9x torch.
"""
import torch

import ember
from common import median_time


def main():
    threads = ember.get_num_threads()
    torch.set_num_threads(threads)
    peak = ember._C._measured_fma_peak_gflops(0.5)
    print(f"threads {threads}; FMA peak {peak:.0f} GFLOP/s (float32 FMA throughput at the build's widest vectors, "
          "measured in this run)")
    for n, dtype in [(256, "float32"), (1024, "float32"), (4096, "float32"), (1024, "bfloat16")]:
        ea, eb = ember.randn(n, n).to(getattr(ember, dtype)), ember.randn(n, n).to(getattr(ember, dtype))
        ta, tb = torch.randn(n, n).to(getattr(torch, dtype)), torch.randn(n, n).to(getattr(torch, dtype))
        kw = dict(repeat=5 if n < 4096 else 3, min_time=0.2 if n < 4096 else 1.0)
        te = min(median_time(lambda: ea @ eb, **kw) for _ in range(2))
        tt = min(median_time(lambda: ta @ tb, **kw) for _ in range(2))
        flops = 2 * n ** 3
        print(f"{dtype:9s} {n:5d}: ember {flops / te / 1e9:7.1f} GFLOP/s ({100 * flops / te / 1e9 / peak:4.1f}% of peak)"
              f"  torch {flops / tt / 1e9:7.1f} GFLOP/s  ratio {tt / te:5.2f}x")


if __name__ == "__main__":
    main()

"""CUDA matmul: Ember against torch in one process on the GPU, the same random operands for both.

Prints TFLOP/s of each (median of repeats, timed between device synchronizations) and Ember's ratio to torch
(higher is better). Targets (issue 14): 4096^3 float32 and 8192^3 bfloat16 at least 0.97x torch. Both run
float32 products in full float32 (torch.backends.cuda.matmul.allow_tf32 is False by default).
"""

import numpy as np
import torch

import ember
from common import device_time

# (label, batch or None, M, K, N, transpose a, dtypes)
CASES = [
    ("square", None, 4096, 4096, 4096, False, ["float32", "float16", "bfloat16"]),
    ("square", None, 8192, 8192, 8192, False, ["float16", "bfloat16"]),
    ("a^T", None, 4096, 4096, 4096, True, ["float32", "bfloat16"]),
    ("float64", None, 2048, 2048, 2048, False, ["float64"]),
    ("short K", None, 8192, 64, 8192, False, ["float32", "bfloat16"]),
    ("16 rows", None, 16, 8192, 8192, False, ["float32", "bfloat16"]),
    ("one row", None, 1, 8192, 8192, False, ["float32", "bfloat16"]),
    ("small", None, 128, 128, 128, False, ["float32"]),
    ("bmm", 64, 512, 64, 512, False, ["bfloat16"]),
]


def operands(batch, m, k, n, transpose_a, dtype):
    rng = np.random.default_rng(0)
    lead = (batch,) if batch else ()
    a = rng.standard_normal(lead + ((k, m) if transpose_a else (m, k)), dtype=np.float32)
    b = rng.standard_normal(lead + (k, n), dtype=np.float32)
    ea, eb = (ember.from_numpy(x).to(getattr(ember, dtype)).to("cuda") for x in (a, b))
    ta, tb = (torch.from_numpy(x).to(getattr(torch, dtype)).cuda() for x in (a, b))
    if transpose_a:
        ea, ta = ea.transpose(-1, -2), ta.transpose(-1, -2)
    return (ea, eb), (ta, tb)


def main():
    print(f"{torch.cuda.get_device_name()}; torch {torch.__version__}, "
          f"allow_tf32={torch.backends.cuda.matmul.allow_tf32}")
    print(f"{'case':<10}{'shape':<24}{'dtype':<10}{'ember TF/s':>11}{'torch TF/s':>11}{'ratio':>7}")
    for label, batch, m, k, n, transpose_a, dtypes in CASES:
        flops = 2.0 * m * k * n * (batch or 1)
        for dtype in dtypes:
            (ea, eb), (ta, tb) = operands(batch, m, k, n, transpose_a, dtype)
            te = device_time(lambda: ember.matmul(ea, eb), ember.cuda.synchronize)
            tt = device_time(lambda: torch.matmul(ta, tb), torch.cuda.synchronize)
            shape = f"{batch}x" if batch else ""
            shape += f"{m}x{k}x{n}"
            print(f"{label:<10}{shape:<24}{dtype:<10}{flops / te / 1e12:>11.1f}{flops / tt / 1e12:>11.1f}"
                  f"{tt / te:>7.2f}")
            del ea, eb, ta, tb


if __name__ == "__main__":
    main()

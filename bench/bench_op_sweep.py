"""Common ops on 1M float32 elements against torch in one process: the ops a session-23 sweep found slower than torch
(loops GCC left scalar, composites, conversions without F16C), kept here so they stay at least at torch's speed.

Prints ember's speed as a ratio to torch's (higher is better), one row per op, and the median ratio.
"""
import statistics

import numpy as np
import torch

import ember
from common import compare

N = 1 << 20
OPS = [  # statement with m for the module; a, b: (N,) float32; M: (1024, 1024) float32
    "m.nn.functional.leaky_relu(a)", "m.nn.functional.elu(a)", "m.nn.functional.hardtanh(a)", "a.fill_(1.0)",
    "m.zeros(N)", "m.full((N,), 3.0)", "a.nan_to_num()", "a.clamp(-1, 1)", "a.to(m.float16)",
    "a.to(m.float16).float()", "M.max(1)", "M.argmax(1)", "M.min(0)", "a.tanh()", "a.exp()", "m.nn.functional.gelu(a)",
    "a.sigmoid()", "M.softmax(1)", "a.lerp(b, 0.3)", "a.addcmul(a, b, value=0.5)", "a.index_select(0, i)",
]


def main():
    torch.set_num_threads(ember.get_num_threads())
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
    i = rng.integers(0, N, N // 8)
    env = {}  # per library: the module as m and the operands
    for p, m in (("e", ember), ("t", torch)):
        env[p] = {"m": m, "N": N, "a": m.from_numpy(a.copy()), "b": m.from_numpy(b.copy()),
                  "M": m.from_numpy(a.reshape(1024, 1024).copy()), "i": m.from_numpy(i.copy())}

    def on(p, stmt):  # the statement as a function over library p's names
        return eval(f"lambda: {stmt}", env[p])

    ratios = [compare(stmt, on("e", stmt), on("t", stmt), repeat=3, min_time=0.05, rounds=5)
              for stmt in OPS]
    print(f"median speed ratio {statistics.median(ratios):.2f}x over {len(OPS)} ops")


if __name__ == "__main__":
    main()

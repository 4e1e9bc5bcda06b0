"""The seed CNN's convolution stack (seed 002: Conv2d 3->32->32, pool, 32->64->64, pool, 64->128, pool, 3x3 kernels,
padding 1, ReLU between, on a batch of 64 3x32x32 images) through the functional ops, forward (no_grad) and
forward + backward, float32; with the GFLOP/s reached against oneDNN's float32 conv peak measured in this run.

Prints ember's speed as a ratio to torch's (higher is better). Targets (issue 11): forward + backward at least
1.5x, inference 1.6x.
"""
import numpy as np
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from common import compare, median_time

BATCH = 64
STACK = [(3, 32), (32, 32), "pool", (32, 64), (64, 64), "pool", (64, 128), "pool"]


def params(m):
    rng = np.random.default_rng(0)
    out = []
    for layer in STACK:
        if layer != "pool":
            w = rng.standard_normal((layer[1], layer[0], 3, 3)) * (2 / (9 * layer[0])) ** 0.5
            out.append((m.from_numpy(w).float().requires_grad_(), m.zeros(layer[1]).requires_grad_()))
    return out


def forward(m, F, x, ps):
    it = iter(ps)
    relu = getattr(m, "relu", None) or (lambda t: t.clamp(min=0))
    for layer in STACK:
        if layer == "pool":
            x = F.max_pool2d(x, 2)
        else:
            w, b = next(it)
            x = relu(F.conv2d(x, w, b, padding=1))
    return x


def stack_flops(backward):
    """Multiply-adds x 2 of the convolutions; backward adds the data and weight gradients (none for the input)."""
    total, size, first = 0, 32, True
    for layer in STACK:
        if layer == "pool":
            size //= 2
            continue
        f = 2 * BATCH * layer[0] * layer[1] * 9 * size * size
        total += f + (backward and (f if first else 2 * f))
        first = False
    return total


def main():
    torch.set_num_threads(ember.get_num_threads())
    a = np.random.default_rng(1).standard_normal((BATCH, 3, 32, 32))
    env = {"ember": ember, "torch": torch, "EF": EF, "TF": TF, "forward": forward,
           "ex": ember.from_numpy(a).float(), "tx": torch.from_numpy(a).float(), "ep": params(ember), "tp": params(torch)}

    def step(m, F, x, ps):
        forward(m, F, x, ps).sum().backward()
    env["step"] = step
    kw = dict(globals=env, repeat=3, min_time=0.3, rounds=5)
    with ember.no_grad(), torch.no_grad():
        r_inf = compare("conv stack forward (no_grad)", "forward(ember, EF, ex, ep)", "forward(torch, TF, tx, tp)", **kw)
        t_inf = median_time("forward(ember, EF, ex, ep)", globals=env, repeat=5, min_time=0.3)
    r_train = compare("conv stack forward + backward", "step(ember, EF, ex, ep)", "step(torch, TF, tx, tp)", **kw)
    t_train = median_time("step(ember, EF, ex, ep)", globals=env, repeat=5, min_time=0.3)
    # oneDNN's float32 peak here: the stack's largest convolution (64->64 channels at 32x32), forward only.
    pw = ember.randn(64, 64, 3, 3)
    px = ember.randn(BATCH, 64, 32, 32)
    with ember.no_grad():
        t_peak = median_time(lambda: EF.conv2d(px, pw, padding=1), repeat=5, min_time=0.3)
    peak = 2 * BATCH * 64 * 64 * 9 * 32 * 32 / t_peak / 1e9
    print(f"  forward: {stack_flops(False) / t_inf / 1e9:.0f} GFLOP/s, forward + backward: "
          f"{stack_flops(True) / t_train / 1e9:.0f} GFLOP/s; oneDNN float32 conv peak {peak:.0f} GFLOP/s")
    print(f"  targets: inference 1.6x ({r_inf:.2f}x), forward + backward 1.5x ({r_train:.2f}x)")


if __name__ == "__main__":
    main()

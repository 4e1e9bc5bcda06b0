"""Gradient checkpointing: peak memory and time of forward+backward through a 20-layer MLP
(width 512, batch 4096), plain vs checkpointed in segments of 4 layers (ember.utils.checkpoint).
Memory is Ember's CPU allocator's peak (ember.cpu.max_memory_allocated); torch's CPU build has no
such counter, so torch's time is shown for scale.
"""
import time

import torch

import ember
from ember.utils.checkpoint import checkpoint

LAYERS, WIDTH, BATCH, SEGMENT = 20, 512, 4096, 4


def make_params(m):
    g = m.Generator().manual_seed(0)
    return [((m.randn(WIDTH, WIDTH, generator=g) * WIDTH ** -0.5).requires_grad_(), m.zeros(WIDTH, requires_grad=True))
            for _ in range(LAYERS)]


def segment(params):
    def run(x):
        for w, b in params:
            x = (x @ w + b).relu()
        return x
    return run


def step(m, x, params, use_checkpoint):
    h = x
    for s in range(0, LAYERS, SEGMENT):
        seg = segment(params[s:s + SEGMENT])
        h = checkpoint(seg, h) if use_checkpoint else seg(h)
    h.sum().backward()
    for w, b in params:
        w.grad = b.grad = None


def measure(m, x, params, use_checkpoint):
    step(m, x, params, use_checkpoint)  # warm up
    if m is ember:
        ember.cpu.reset_peak_memory_stats()
        base = ember.cpu.memory_allocated()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        step(m, x, params, use_checkpoint)
        times.append(time.perf_counter() - t0)
    peak = ember.cpu.max_memory_allocated() - base if m is ember else None
    return sorted(times)[1], peak


def main():
    torch.set_num_threads(ember.get_num_threads())
    ep, tp = make_params(ember), make_params(torch)
    ex, tx = ember.randn(BATCH, WIDTH, requires_grad=True), torch.randn(BATCH, WIDTH, requires_grad=True)
    t_plain, peak_plain = measure(ember, ex, ep, False)
    t_ckpt, peak_ckpt = measure(ember, ex, ep, True)
    tt_plain, _ = measure(torch, tx, tp, False)
    print(f"plain        : peak {peak_plain / 2**20:7.1f} MiB above the parameters, step {t_plain * 1e3:7.1f} ms "
          f"(torch {tt_plain * 1e3:.1f} ms, speed ratio {tt_plain / t_plain:.2f}x)")
    print(f"checkpointed : peak {peak_ckpt / 2**20:7.1f} MiB above the parameters, step {t_ckpt * 1e3:7.1f} ms")
    print(f"checkpointing lowers the peak by {100 * (1 - peak_ckpt / peak_plain):.0f}% "
          f"for {100 * (t_ckpt / t_plain - 1):.0f}% more time")


if __name__ == "__main__":
    main()

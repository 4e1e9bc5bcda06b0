"""CUDA elementwise: per-op dispatch, a 50-op autograd chain and memory-bound throughput, Ember against torch
in one process on the GPU (run on a lent GPU machine).

Each figure is the median of rounds timed between device synchronisations. Issue 14 targets: dispatch and the
chain at most 0.5x torch's time; a + b on 16M float32 at least 0.95x torch and 85% of the HBM bandwidth (the
device-to-device copy rate measured here).
"""

import torch

import ember
from common import device_time

N = 16 * 1024 * 1024


def row(name, e, t, extra=""):
    print(f"{name:38s} ember {e * 1e6:9.2f} us  torch {t * 1e6:9.2f} us  time ratio {e / t:5.2f}  "
          f"speed ratio {t / e:5.2f}x {extra}")


def chain(x):
    """50 (mul, add) pairs forward, then backward."""
    y = x
    for _ in range(50):
        y = y * 1.01 + 0.5
    y.sum().backward()


def main():
    es, ts = ember.cuda.synchronize, torch.cuda.synchronize
    ea, eb = ember.ones(1, device="cuda"), ember.ones(1, device="cuda")
    ta, tb = torch.ones(1, device="cuda"), torch.ones(1, device="cuda")
    row("a + b, 1 element (dispatch)", device_time(lambda: ea + eb, es), device_time(lambda: ta + tb, ts))

    ex = ember.ones(1024, device="cuda", requires_grad=True)
    tx = torch.ones(1024, device="cuda", requires_grad=True)
    row("50 x (mul, add) fwd + bwd, 1024 el", device_time(lambda: chain(ex), es),
        device_time(lambda: chain(tx), ts))

    ea, eb = ember.rand(N).cuda(), ember.rand(N).cuda()
    ta, tb = torch.rand(N, device="cuda"), torch.rand(N, device="cuda")
    eo, to = ember.empty(N, device="cuda"), torch.empty(N, device="cuda")
    src, dst = torch.empty(4 * N, device="cuda"), torch.empty(4 * N, device="cuda")
    copy_bw = 2 * src.numel() * 4 / device_time(lambda: dst.copy_(src), ts)
    for label, ef, tf, nbytes in (
            ("a + b, 16M f32 (fresh output)", lambda: ea + eb, lambda: ta + tb, 3 * N * 4),
            ("add(a, b, out=c), 16M f32", lambda: ember.add(ea, eb, out=eo), lambda: torch.add(ta, tb, out=to), 3 * N * 4),
            ("a * 2.5, 16M f32", lambda: ea * 2.5, lambda: ta * 2.5, 2 * N * 4),
            ("exp, 16M f32", lambda: ember.exp(ea), lambda: torch.exp(ta), 2 * N * 4),
            ("a.t() + b (strided), 4096^2 f32", lambda: ea.view(4096, 4096).t() + eb.view(4096, 4096),
             lambda: ta.view(4096, 4096).t() + tb.view(4096, 4096), 3 * N * 4),
            ("to(float16), 16M", lambda: ea.to(ember.float16), lambda: ta.to(torch.float16), N * 6)):
        e, t = device_time(ef, es), device_time(tf, ts)
        row(label, e, t, f"ember {nbytes / e / 1e12:.2f} TB/s = {nbytes / e / copy_bw:.0%} of copy bandwidth")
    print(f"device copy bandwidth (read + write): {copy_bw / 1e12:.2f} TB/s")


if __name__ == "__main__":
    main()

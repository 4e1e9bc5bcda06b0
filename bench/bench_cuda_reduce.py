"""CUDA reductions, arg-extremum and softmax: Ember vs torch on one GPU, in one process.

Each op runs `calls` times between two device synchronisations; the time per call is the median over rounds
(interleaved: ember, torch, ember, ...). Prints torch time / ember time (higher is better; targets, issue 14:
reductions >= 0.95x and >= 85% of HBM bandwidth, softmax >= 1.0x) and the bytes moved per second against
~3.0 TB/s of HBM (inputs that fit the 50 MB L2 can read faster).
"""
import statistics

import torch

import ember
from common import device_seconds

HBM = 3.0e12
N = 16 * 1024 * 1024


def sync():
    torch.cuda.synchronize()  # one device, one primary context: waits for Ember's kernels too


def compare(name, ember_fn, torch_fn, nbytes, rounds=15):
    for fn in (ember_fn, torch_fn):  # warm up: caching allocators, lazy loading of kernels
        for _ in range(3):
            fn()
    once = device_seconds(ember_fn, sync, 3)
    calls = max(5, min(2000, int(0.02 / max(once, 1e-7))))
    te, tt = [], []
    for _ in range(rounds):
        te.append(device_seconds(ember_fn, sync, calls))
        tt.append(device_seconds(torch_fn, sync, calls))
    e, t = statistics.median(te), statistics.median(tt)
    gbs = nbytes / e
    print(f"{name:40s} ember {e * 1e6:9.2f} us  torch {t * 1e6:9.2f} us  ratio {t / e:5.2f}x  "
          f"{gbs / 1e9:7.0f} GB/s ({100 * gbs / HBM:3.0f}% of HBM; torch {100 * nbytes / t / HBM:3.0f}%)")


def pair(shape, dtype=torch.float32):
    t = torch.randn(*shape, dtype=torch.float32).to(dtype)
    e = ember.from_numpy(t.float().numpy()).to(getattr(ember, str(dtype).replace("torch.", "")))
    return e.cuda(), t.cuda()


def main():
    print(torch.cuda.get_device_name(), "| torch", torch.__version__)
    e, t = pair((N,))
    compare("sum, 16M f32", lambda: e.sum(), lambda: t.sum(), 4 * N)
    compare("mean, 16M f32", lambda: e.mean(), lambda: t.mean(), 4 * N)
    compare("amax, 16M f32", lambda: e.amax(), lambda: t.amax(), 4 * N)
    compare("argmax, 16M f32", lambda: e.argmax(), lambda: t.argmax(), 4 * N)
    eh, th = pair((N,), torch.bfloat16)
    compare("sum, 16M bf16", lambda: eh.sum(), lambda: th.sum(), 2 * N)
    e, t = pair((4096, 4096))
    compare("sum(dim=-1) of (4096, 4096) f32", lambda: e.sum(-1), lambda: t.sum(-1), 4 * N)
    compare("sum(dim=0) of (4096, 4096) f32", lambda: e.sum(0), lambda: t.sum(0), 4 * N)
    compare("sum of transposed (4096, 4096) f32", lambda: e.t().sum(), lambda: t.t().sum(), 4 * N)
    compare("amax(dim=0) of (4096, 4096) f32", lambda: e.amax(0), lambda: t.amax(0), 4 * N)
    e, t = pair((4096, 1000))
    nbytes = 4 * 4096 * 1000
    compare("sum(dim=-1) of (4096, 1000) f32", lambda: e.sum(-1), lambda: t.sum(-1), nbytes)
    compare("max(dim=-1) of (4096, 1000) f32", lambda: e.max(-1), lambda: t.max(-1), nbytes)
    compare("softmax(dim=-1) of (4096, 1000) f32", lambda: e.softmax(-1), lambda: t.softmax(-1), 2 * nbytes)
    compare("log_softmax(dim=-1) of (4096, 1000) f32", lambda: e.log_softmax(-1), lambda: t.log_softmax(-1),
            2 * nbytes)
    e, t = pair((4096, 5000))
    compare("softmax(dim=-1) of (4096, 5000) f32", lambda: e.softmax(-1), lambda: t.softmax(-1), 2 * 4 * 4096 * 5000)


if __name__ == "__main__":
    main()

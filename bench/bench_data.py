"""DataLoader throughput over a Python dataset of 28x28 float32 images (batch 64, shuffle) at
num_workers 0 and 2: one full pass per round (worker start-up included, as a training epoch pays it).
Also: the same images as a C++ dataset (batches gathered by C++ threads) against torch's TensorDataset.

Prints ember's speed as a ratio to torch's (higher is better). Target (issue 13): at least 1.0x.
"""
import statistics
import sys
import time

import torch

import ember
import ember.utils.data as eud
import torch.utils.data as tud
from common import fmt

N = 10000


def make_dataset(lib, base):
    class Images(base):
        def __init__(self):
            lib.manual_seed(0)
            self.images = lib.rand(N, 1, 28, 28)
            self.labels = [i % 10 for i in range(N)]

        def __len__(self):
            return N

        def __getitem__(self, i):
            return self.images[i], self.labels[i]

    return Images()


def epoch_seconds(loader):
    start = time.perf_counter()
    n = 0
    for x, y in loader:
        n += x.shape[0]
    assert n == N
    return time.perf_counter() - start


def main(rounds=5):
    torch.set_num_threads(ember.get_num_threads())
    eds, tds = make_dataset(ember, eud.Dataset), make_dataset(torch, tud.Dataset)
    cpp = ember._C._data.TensorDataset(eds.images, ember.tensor(eds.labels))
    ttensors = tud.TensorDataset(tds.images, torch.tensor(tds.labels))
    for name, e_ds, t_ds in [("Python dataset", eds, tds), ("C++ vs torch TensorDataset", cpp, ttensors)]:
        for workers in (0, 2):
            run(name, workers, e_ds, t_ds, rounds)


def run(name, workers, eds, tds, rounds):
    """Median seconds per pass of both loaders over `rounds` interleaved rounds (the shared machine drifts)."""
    el = eud.DataLoader(eds, batch_size=64, shuffle=True, num_workers=workers)
    tl = tud.DataLoader(tds, batch_size=64, shuffle=True, num_workers=workers)
    te, tt = [], []
    for _ in range(rounds):
        te.append(epoch_seconds(el))
        tt.append(epoch_seconds(tl))
    e, t = statistics.median(te), statistics.median(tt)
    print(f"{name}, {N} 28x28 f32, bs 64, workers {workers}: ember {fmt(e):>10s} ({N / e:,.0f} img/s)  "
          f"torch {fmt(t):>10s} ({N / t:,.0f} img/s)  speed ratio {t / e:5.2f}x")

if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)

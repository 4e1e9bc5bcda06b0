"""The seed CNN (bench_nn_cnn.cnn: Conv2d/BatchNorm2d/ReLU/MaxPool2d/Dropout2d blocks, Linear head) on CUDA, Ember
against torch in one process (run on a lent GPU machine): the full train step (forward, cross-entropy, backward, Adam)
on a batch of 256 3x32x32 float32 images, with cuDNN's heuristic and with benchmark mode, and inference (eval,
no_grad). Both libraries otherwise run their defaults (cuDNN convolutions with TF32 allowed). Each figure is the
median of rounds timed between device synchronisations. Prints ms per step and Ember's time over torch's. Skips
cleanly without a GPU.
"""
import sys

import numpy as np
import torch

import ember
from bench_nn_cnn import cnn
from common import device_time, gpu_missing

BATCH = 256


def row(name, e, t):
    print(f"{name:44s} ember {e * 1e3:8.3f} ms  torch {t * 1e3:8.3f} ms  time ratio {e / t:5.2f}  "
          f"speed ratio {t / e:5.2f}x")


def seed_batch():
    """The batch both CNN benches train on: 256 3x32x32 float32 images and their labels, as numpy arrays."""
    rng = np.random.default_rng(1)
    return rng.standard_normal((BATCH, 3, 32, 32)).astype(np.float32), rng.integers(0, 10, BATCH)


def train_step(lib, model, opt, x, y):
    """One step (also bench_cuda_graph's eager step and warm-up); returns the loss."""
    opt.zero_grad(set_to_none=True)
    loss = lib.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def main():
    if gpu_missing("bench_cuda_cnn"):
        return 0
    a, labels = seed_batch()
    em, tm = cnn(ember).cuda(), cnn(torch).cuda()
    ex, tx = ember.from_numpy(a).cuda(), torch.from_numpy(a).cuda()
    ey, ty = ember.from_numpy(labels).long().cuda(), torch.from_numpy(labels).long().cuda()
    eo, to = ember.optim.Adam(em.parameters()), torch.optim.Adam(tm.parameters())
    es, ts = ember.cuda.synchronize, torch.cuda.synchronize
    kw = dict(repeat=7, min_time=0.3)
    for benchmark in (False, True):
        ember.backends.cudnn.benchmark = torch.backends.cudnn.benchmark = benchmark
        row(f"seed CNN train step (Adam), batch {BATCH}{', benchmark' if benchmark else ''}",
            device_time(lambda: train_step(ember, em, eo, ex, ey), es, **kw),
            device_time(lambda: train_step(torch, tm, to, tx, ty), ts, **kw))
    ember.backends.cudnn.benchmark = torch.backends.cudnn.benchmark = False
    em.eval()
    tm.eval()
    with ember.no_grad(), torch.no_grad():
        row(f"seed CNN inference, batch {BATCH}", device_time(lambda: em(ex), es, **kw),
            device_time(lambda: tm(tx), ts, **kw))
    return 0


if __name__ == "__main__":
    sys.exit(main())

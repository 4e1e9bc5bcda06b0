"""The seed CNN train step (forward, cross-entropy, backward, Adam) at batch 256, float32, on CUDA: run eagerly and
replayed from a CUDA graph (the whole step captured, Adam with capturable=True), Ember and torch in one process (run
on a lent GPU machine). Each figure is the median of rounds timed between device synchronisations. Prints ms per
step, the graph's speedup over eager in each library, and Ember's time over torch's. Skips cleanly without a GPU.
"""
import sys

import torch

import ember
from bench_cuda_cnn import BATCH, row, seed_batch, train_step
from bench_nn_cnn import cnn
from common import device_time, gpu_missing


def graphed_step(lib, model, opt, x, y):
    """The step captured whole after three warm-up steps on a side stream (torch's recipe); returns replay."""
    s = lib.cuda.Stream()
    s.wait_stream(lib.cuda.current_stream())
    with lib.cuda.stream(s):
        for _ in range(3):
            train_step(lib, model, opt, x, y)
    lib.cuda.current_stream().wait_stream(s)
    opt.zero_grad(set_to_none=True)
    g = lib.cuda.CUDAGraph()
    with lib.cuda.graph(g):
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return g.replay


def setup(lib, a, labels, capturable):
    model = cnn(lib).cuda()
    opt = lib.optim.Adam(model.parameters(), capturable=capturable)
    x, y = lib.from_numpy(a).cuda(), lib.from_numpy(labels).long().cuda()
    return model, opt, x, y


def main():
    if gpu_missing("bench_cuda_graph"):
        return 0
    a, labels = seed_batch()
    kw = dict(repeat=7, min_time=0.3)
    es, ts = ember.cuda.synchronize, torch.cuda.synchronize
    eager = {}
    for lib, name in ((ember, "ember"), (torch, "torch")):
        model, opt, x, y = setup(lib, a, labels, capturable=False)
        eager[name] = device_time(lambda: train_step(lib, model, opt, x, y),
                                  es if lib is ember else ts, **kw)
    graphed = {}
    for lib, name in ((ember, "ember"), (torch, "torch")):
        model, opt, x, y = setup(lib, a, labels, capturable=True)
        graphed[name] = device_time(graphed_step(lib, model, opt, x, y), es if lib is ember else ts, **kw)
    row(f"seed CNN train step (Adam), batch {BATCH}, eager", eager["ember"], eager["torch"])
    row(f"seed CNN train step (Adam), batch {BATCH}, graph", graphed["ember"], graphed["torch"])
    for name in ("ember", "torch"):
        print(f"{name}: graph over eager time ratio {graphed[name] / eager[name]:5.2f}")
    print(f"ember graph over torch eager time ratio {graphed['ember'] / eager['torch']:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

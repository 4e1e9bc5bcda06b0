"""The main job's model (seed 002's CNN adapted to 1x28x28 Fashion-MNIST images: two Conv3x3+BN+ReLU blocks, max
pool, Dropout2d; twice more; Linear 1152->256->128->10 with ReLU and Dropout(0.5)) on 2 threads: the train step at
batch 128 (zero_grad, forward, cross-entropy, backward, Adam with weight decay) and the eval forward (no_grad, eval
mode) at batch 1000; then each layer type's forward and backward at the model's shapes.

Prints ember's speed as a ratio to torch's (higher is better). Target (issue 13): the main job's epoch time at most
0.5x torch's, i.e. a train step speed ratio of at least 2x.

    python bench/bench_cnn_step.py [--layers]

Measured here (2 threads; medians, both libraries in one process): on an idle machine (before the conv backward's
shared reorder and addmm's single GEMM, together about 5% of Ember's step) the step ran 153 ms vs torch's 184 ms
(0.83x the time) and the eval forward 671 ms vs 1420 ms (0.47x); with the machine loaded (load average 5-9 on 2
cores) the step ran 395-556 ms vs torch's 2.0-2.8 s (0.19-0.20x) and the eval 0.96-1.38 s vs 2.2-3.0 s (0.43-0.46x):
torch's OpenMP team loses far more to the other processes than Ember's pool. About 75% of Ember's step is oneDNN's
convolutions, the same jit:avx2 kernels torch runs. With Winograd F(2x2, 3x3) for the 32- to 128-channel layers
(src/cpu/nn/conv_winograd.cpp; load 8-9): train step 2.15x and 2.39x torch (time ratio 0.47, 0.42); in 1-thread CPU
time, interleaved, 165-174 ms against 233-240 with the direct kernels and torch's 350-378 (2.12-2.19x).
"""
import sys

import torch

import ember
from common import compare

BATCH, EVAL_BATCH = 128, 1000


def model(lib):
    nn = lib.nn

    def block(cin, cout, two=True):
        layers = [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        if two:
            layers += [nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        return layers + [nn.MaxPool2d(2, 2), nn.Dropout2d(0.25)]

    lib.manual_seed(0)
    return nn.Sequential(*block(1, 32), *block(32, 64), *block(64, 128, two=False), nn.Flatten(),
                         nn.Linear(128 * 3 * 3, 256), nn.ReLU(inplace=True), nn.Dropout(0.5),
                         nn.Linear(256, 128), nn.ReLU(inplace=True), nn.Dropout(0.5), nn.Linear(128, 10))


def setup(lib):
    m = model(lib)
    opt = lib.optim.Adam(m.parameters(), lr=1e-3, weight_decay=1e-4)
    loss_fn = lib.nn.CrossEntropyLoss()
    x, y = lib.randn(BATCH, 1, 28, 28), lib.randint(0, 10, (BATCH,))
    xe = lib.randn(EVAL_BATCH, 1, 28, 28)
    evaluation = model(lib).eval()

    def step():
        opt.zero_grad()
        loss_fn(m(x), y).backward()
        opt.step()

    def infer():
        with lib.no_grad():
            evaluation(xe)
    return step, infer


def layers(lib):
    """(name, module, input shape) for each layer type at the model's shapes."""
    nn = lib.nn
    return [("conv 1->32 @28", nn.Conv2d(1, 32, 3, padding=1), (BATCH, 1, 28, 28)),
            ("conv 32->32 @28", nn.Conv2d(32, 32, 3, padding=1), (BATCH, 32, 28, 28)),
            ("conv 64->64 @14", nn.Conv2d(64, 64, 3, padding=1), (BATCH, 64, 14, 14)),
            ("batchnorm 32 @28", nn.BatchNorm2d(32), (BATCH, 32, 28, 28)),
            ("relu 32 @28", nn.ReLU(), (BATCH, 32, 28, 28)),
            ("maxpool 32 @28", nn.MaxPool2d(2, 2), (BATCH, 32, 28, 28)),
            ("dropout2d 32 @14", nn.Dropout2d(0.25), (BATCH, 32, 14, 14)),
            ("linear 1152->256", nn.Linear(1152, 256), (BATCH, 1152))]


def layer_fns(lib, module, shape):
    x = lib.randn(*shape, requires_grad=True)
    y = module(x)
    g = lib.ones_like(y)
    return (lambda: module(x)), (lambda: y.backward(g, retain_graph=True))


def main():
    torch.set_num_threads(2)
    ember.set_num_threads(2)
    (es, ei), (ts, ti) = setup(ember), setup(torch)
    for f in (es, ts, ei, ti):
        f()
    step = compare(f"train step, batch {BATCH}", es, ts, rounds=5, repeat=3, min_time=0.5)
    infer = compare(f"eval forward, batch {EVAL_BATCH}", ei, ti, rounds=5, repeat=3, min_time=0.5)
    print(f"epoch time ratio (ember / torch): {1 / step:.2f}; eval {1 / infer:.2f}")
    if "--layers" in sys.argv:
        for (name, em, shape), (_, tm, _) in zip(layers(ember), layers(torch)):
            (ef, eb), (tf, tb) = layer_fns(ember, em, shape), layer_fns(torch, tm, shape)
            compare(f"{name} fwd", ef, tf, rounds=3, min_time=0.1)
            compare(f"{name} bwd", eb, tb, rounds=3, min_time=0.1)


if __name__ == "__main__":
    main()

"""Seed 002's CNNClassifier (Conv2d/BatchNorm2d/ReLU/MaxPool2d/Dropout2d blocks, Linear head) on a batch of 64
3x32x32 float32 images, as modules: forward + backward of the cross-entropy loss, the full train step with Adam, and
inference (eval, no_grad); with the GFLOP/s reached (convolutions and Linear layers) against oneDNN's float32 conv
peak measured in this run.

Prints ember's speed as a ratio to torch's (higher is better). Targets (issue 11): forward + backward at least
1.5x, inference 1.6x (torch here: train step 142 ms, inference 36.5 ms).
"""
import numpy as np
import torch

import ember
from common import compare, median_time

BATCH = 64
CONVS = [(3, 32, 32), (32, 32, 32), (32, 64, 16), (64, 64, 16), (64, 128, 8)]  # (in, out, spatial size)
LINEARS = [(128 * 4 * 4, 256), (256, 128), (128, 10)]


def relu_module(nn, F):
    if hasattr(nn, "ReLU"):
        return nn.ReLU(inplace=True)

    class ReLU(nn.Module):  # until ember.nn has ReLU
        def forward(self, x):
            return F.relu(x, inplace=True)
    return ReLU()


def cnn(lib):
    nn, F = lib.nn, lib.nn.functional

    def block(cin, cout):
        return [nn.Conv2d(cin, cout, kernel_size=3, padding=1), nn.BatchNorm2d(cout), relu_module(nn, F)]

    class CNNClassifier(nn.Module):
        def __init__(self, num_classes=10):
            super().__init__()
            self.features = nn.Sequential(
                *block(3, 32), *block(32, 32), nn.MaxPool2d(2, 2), nn.Dropout2d(0.25),
                *block(32, 64), *block(64, 64), nn.MaxPool2d(2, 2), nn.Dropout2d(0.25),
                *block(64, 128), nn.MaxPool2d(2, 2), nn.Dropout2d(0.25))
            self.classifier = nn.Sequential(
                nn.Flatten(), nn.Linear(128 * 4 * 4, 256), relu_module(nn, F), nn.Dropout(0.5),
                nn.Linear(256, 128), relu_module(nn, F), nn.Dropout(0.5), nn.Linear(128, num_classes))

        def forward(self, x):
            return self.classifier(self.features(x))

    lib.manual_seed(0)
    return CNNClassifier()


def flops(backward):
    """Multiply-adds x 2 of the convolutions and Linear layers; backward adds the data and weight gradients (no
    data gradient for the first convolution)."""
    total = 0
    for i, (cin, cout, size) in enumerate(CONVS):
        f = 2 * BATCH * cin * cout * 9 * size * size
        total += f + (backward and (f if i == 0 else 2 * f))
    for fin, fout in LINEARS:
        total += 2 * BATCH * fin * fout * (3 if backward else 1)
    return total


def main():
    torch.set_num_threads(ember.get_num_threads())
    rng = np.random.default_rng(1)
    a, labels = rng.standard_normal((BATCH, 3, 32, 32)), rng.integers(0, 10, BATCH)
    env = {"ember": ember, "torch": torch, "em": cnn(ember), "tm": cnn(torch),
           "ex": ember.from_numpy(a).float(), "tx": torch.from_numpy(a).float(),
           "ey": ember.from_numpy(labels).long(), "ty": torch.from_numpy(labels).long()}
    env["eo"], env["to"] = ember.optim.Adam(env["em"].parameters()), torch.optim.Adam(env["tm"].parameters())

    def fwd_bwd(lib, model, x, y):
        lib.nn.functional.cross_entropy(model(x), y).backward()

    def train_step(lib, model, opt, x, y):
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    env.update(fwd_bwd=fwd_bwd, train_step=train_step)
    kw = dict(globals=env, repeat=3, min_time=0.3, rounds=5)
    times = {}
    r_fb = compare("seed CNN forward + backward", "fwd_bwd(ember, em, ex, ey)", "fwd_bwd(torch, tm, tx, ty)", **kw)
    times["fb"] = median_time("fwd_bwd(ember, em, ex, ey)", globals=env, repeat=5, min_time=0.3)
    r_step = compare("seed CNN train step (Adam)", "train_step(ember, em, eo, ex, ey)",
                     "train_step(torch, tm, to, tx, ty)", **kw)
    times["step"] = median_time("train_step(ember, em, eo, ex, ey)", globals=env, repeat=5, min_time=0.3)
    env["em"].eval()
    env["tm"].eval()
    with ember.no_grad(), torch.no_grad():
        r_inf = compare("seed CNN inference (eval, no_grad)", "em(ex)", "tm(tx)", **kw)
        times["inf"] = median_time("em(ex)", globals=env, repeat=5, min_time=0.3)
        # oneDNN's float32 peak here: the network's largest convolution (64->64 channels at 16x16 and its
        # 32->32 at 32x32 cost the same), forward only
        pw, px = ember.randn(32, 32, 3, 3), ember.randn(BATCH, 32, 32, 32)
        t_peak = median_time(lambda: ember.nn.functional.conv2d(px, pw, padding=1), repeat=5, min_time=0.3)
    peak = 2 * BATCH * 32 * 32 * 9 * 32 * 32 / t_peak / 1e9
    print(f"  GFLOP/s: forward + backward {flops(True) / times['fb'] / 1e9:.0f}, train step "
          f"{flops(True) / times['step'] / 1e9:.0f}, inference {flops(False) / times['inf'] / 1e9:.0f}; "
          f"oneDNN float32 conv peak {peak:.0f}")
    print(f"  targets: forward + backward 1.5x ({r_fb:.2f}x), inference 1.6x ({r_inf:.2f}x); train step {r_step:.2f}x")


if __name__ == "__main__":
    main()

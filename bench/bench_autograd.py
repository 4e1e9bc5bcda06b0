"""Autograd: forward+backward of a chain of 100 ops on 1-element tensors (engine overhead), and an
MLP 784-512-512-10 (batch 128) forward+backward written with tensor ops.

Prints ember's speed as a ratio to torch's (higher is better). Targets (issue 4): chain time at most
0.5x torch's; MLP at least 1.0x.
"""
import torch

import ember
from common import compare


def chain(m, x):
    y = x
    for _ in range(25):
        y = ((y * 1.01 + 0.5).tanh() - 0.1).exp()
    y.backward()


def mlp_step(m, x, labels_onehot, w1, b1, w2, b2, w3, b3):
    h = (x @ w1 + b1).relu()
    h = (h @ w2 + b2).relu()
    logits = h @ w3 + b3
    loss = -(m.log_softmax(logits, 1) * labels_onehot).sum() / x.shape[0]
    loss.backward()
    for p in (w1, b1, w2, b2, w3, b3):
        p.grad = None


def main():
    torch.set_num_threads(ember.get_num_threads())
    env = {"ember": ember, "torch": torch, "chain": chain, "mlp_step": mlp_step}
    for m, p in ((ember, "e"), (torch, "t")):
        env[p + "x1"] = m.ones(1, requires_grad=True)
        g = m.Generator().manual_seed(0) if hasattr(m, "Generator") else None
        shapes = [(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
        env[p + "params"] = [(m.randn(*s, generator=g) * 0.05).requires_grad_() for s in shapes]
        env[p + "x"] = m.randn(128, 784, generator=g)
        env[p + "y"] = m.zeros(128, 10)
        env[p + "y"][:, 3] = 1.0
    compare("chain of 100 ops, fwd+bwd", "chain(ember, ex1)", "chain(torch, tx1)", globals=env, repeat=5, min_time=0.2)
    compare("MLP 784-512-512-10 b128 step", "mlp_step(ember, ex, ey, *eparams)", "mlp_step(torch, tx, ty, *tparams)",
            globals=env, repeat=5, min_time=0.3)


if __name__ == "__main__":
    main()

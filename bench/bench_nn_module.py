"""nn modules: the cost of calling a small module, and an MLP 784-512-512-10 step at batch 128.

Prints ember's speed as a ratio to torch's (higher is better). Targets (issue 11): a Linear(4, 4) call at most
0.5x torch's time (a speed ratio of at least 2x); the MLP forward + backward at least 1.2x.
"""
import torch

import ember
from common import compare


def mlp(nn):
    return nn.Sequential(nn.Linear(784, 512), nn.Identity(), nn.Linear(512, 512), nn.Identity(), nn.Linear(512, 10))


def step(model, x):
    model.zero_grad()
    model(x).square().sum().backward()


def main():
    torch.set_num_threads(ember.get_num_threads())
    ember.manual_seed(0)
    torch.manual_seed(0)
    env = {"el": ember.nn.Linear(4, 4), "tl": torch.nn.Linear(4, 4), "ex": ember.randn(2, 4), "tx": torch.randn(2, 4),
           "em": mlp(ember.nn), "tm": mlp(torch.nn), "eb": ember.randn(128, 784), "tb": torch.randn(128, 784),
           "step": step, "ember": ember, "torch": torch}
    kw = dict(globals=env, repeat=3, min_time=0.1)
    compare("Linear(4, 4) call, batch 2", "el(ex)", "tl(tx)", **kw)
    with ember.no_grad(), torch.no_grad():
        compare("Linear(4, 4) call, no_grad", "el(ex)", "tl(tx)", **kw)
    compare("MLP 784-512-512-10 fwd+bwd b128", "step(em, eb)", "step(tm, tb)", **kw)
    with ember.no_grad(), torch.no_grad():
        compare("MLP 784-512-512-10 inference", "em(eb)", "tm(tb)", **kw)


if __name__ == "__main__":
    main()

"""Optimizer step: Adam (and AdamW, SGD with momentum) on 10 tensors of 1M float32 parameters.

Prints ember's speed as a ratio to torch's (higher is better). Target (issue 12): Adam at least 2.5x torch,
reported against the memory bandwidth measured in the same run (numpy's in-place add over the same bytes: streams
like Adam's, read and written in place, with no write-allocate traffic). Also Adam on the seed
CNN's parameters (bench_nn_cnn's train step: 0.7M in 26 tensors) and on 26 tiny tensors (the fixed cost of a step),
and the other optimizers' steps on 10 x 1M.
"""
import numpy as np
import torch

import ember
from common import compare, median_time

N, K = 1 << 20, 10
# The seed CNN's parameters: 5 convolutions (weight, bias), their BatchNorms (weight, bias), 3 Linear layers.
CNN_SHAPES = [s for cin, cout in [(3, 32), (32, 32), (32, 64), (64, 64), (64, 128)]
              for s in [(cout, cin, 3, 3), (cout,), (cout,), (cout,)]]
CNN_SHAPES += [s for fin, fout in [(2048, 256), (256, 128), (128, 10)] for s in [(fout, fin), (fout,)]]
# The other fused steps, with their options that take the most work.
OTHERS = [("Adagrad", dict(weight_decay=0.1)), ("RMSprop", dict(momentum=0.9, centered=True)),
          ("Adamax", dict()), ("NAdam", dict()), ("RAdam", dict()), ("Adadelta", dict())]


def setup(lib, opt, shapes=((N,),) * K, device="cpu", **kw):
    params = [lib.nn.Parameter(lib.rand(*s).to(device)) for s in shapes]
    for p in params:
        p.grad = lib.rand_like(p)
    o = getattr(lib.optim, opt)(params, **kw)
    o.step()  # creates the state
    return o


def main():
    torch.set_num_threads(ember.get_num_threads())
    env = {"ea": setup(ember, "Adam", lr=1e-3), "ta": setup(torch, "Adam", lr=1e-3),
           "ew": setup(ember, "AdamW", lr=1e-3), "tw": setup(torch, "AdamW", lr=1e-3),
           "es": setup(ember, "SGD", lr=1e-3, momentum=0.9), "ts": setup(torch, "SGD", lr=1e-3, momentum=0.9),
           "np": np, "na": np.random.rand(7 * K * N // 3).astype(np.float32),
           "nb": np.random.rand(7 * K * N // 3).astype(np.float32)}
    kw = dict(globals=env, repeat=5, min_time=0.2)
    compare("Adam step, 10 x 1M f32", "ea.step()", "ta.step()", **kw)
    # Adam's traffic: read param, grad, exp_avg, exp_avg_sq; write param, exp_avg, exp_avg_sq (28 bytes a parameter).
    t = {lib: median_time(f"{x}.step()", **kw) for lib, x in [("ember", "ea"), ("torch", "ta")]}
    add = median_time("np.add(na, nb, out=na)", **kw)  # 12 bytes an element: Adam's 28 bytes a parameter in all
    bw = 12 * (7 * K * N // 3) / add / 1e9
    print(f"  Adam step moves {28 * K * N / t['ember'] / 1e9:.1f} GB/s (torch {28 * K * N / t['torch'] / 1e9:.1f} "
          f"GB/s); numpy's in-place add of the same bytes runs at {bw:.1f} GB/s")
    compare("AdamW step, 10 x 1M f32", "ew.step()", "tw.step()", **kw)
    compare("SGD momentum step, 10 x 1M f32", "es.step()", "ts.step()", **kw)
    for name, opts in OTHERS:
        env.update(e=setup(ember, name, **opts), t=setup(torch, name, **opts))
        compare(f"{name} step, 10 x 1M f32", "e.step()", "t.step()", **kw)
    tiny = [(4,)] * len(CNN_SHAPES)
    env.update(ecnn=setup(ember, "Adam", CNN_SHAPES), tcnn=setup(torch, "Adam", CNN_SHAPES),
               etiny=setup(ember, "Adam", tiny), ttiny=setup(torch, "Adam", tiny))
    compare(f"Adam step, seed CNN ({len(CNN_SHAPES)} tensors)", "ecnn.step()", "tcnn.step()", **kw)
    compare(f"Adam step, {len(CNN_SHAPES)} x 4 elements", "etiny.step()", "ttiny.step()", **kw)


if __name__ == "__main__":
    main()

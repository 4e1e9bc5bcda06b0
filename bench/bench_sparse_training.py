"""Training an embedding table with sparse gradients: nn.Embedding(100000, 64, sparse=True) looked up by a batch of
8192 indices (a quarter of them repeated), the loss's backward (a sparse COO gradient, one row per index), and one
step of SGD, Adagrad and SparseAdam, against torch in one process.

Prints ember's speed as a ratio to torch's (higher is better). A dense step would touch all 6.4M weights; these
touch the ~6000 rows the batch holds.
"""
import numpy as np
import torch

import ember
from common import compare

ROWS, DIM, BATCH = 100_000, 64, 8192


def main():
    torch.set_num_threads(ember.get_num_threads())
    rng = np.random.default_rng(0)
    idx = rng.integers(0, ROWS, size=BATCH)
    idx[: BATCH // 4] = idx[BATCH // 4: BATCH // 2]
    weight = rng.standard_normal((ROWS, DIM)).astype(np.float32)
    upstream = rng.standard_normal((BATCH, DIM)).astype(np.float32)
    env = {}
    for p, m in (("e", ember), ("t", torch)):
        emb = m.nn.Embedding(ROWS, DIM, sparse=True)
        with m.no_grad():
            emb.weight.copy_(m.from_numpy(weight.copy()))
        env[p + "emb"], env[p + "idx"] = emb, m.from_numpy(idx.copy())
        env[p + "up"] = m.from_numpy(upstream.copy())
        # SGD without momentum: a sparse momentum buffer gains the batch's entries every step (torch's too), so
        # its steps slow down as the timing goes on. The loss is linear in the rows (a fixed upstream gradient), so
        # the weights drift instead of decaying into subnormal numbers
        env[p + "opts"] = {"SGD": m.optim.SGD(emb.parameters(), lr=0.1),
                           "Adagrad": m.optim.Adagrad(emb.parameters(), lr=0.1),
                           "SparseAdam": m.optim.SparseAdam(emb.parameters(), lr=0.01)}

    def backward(p):
        emb = env[p + "emb"]
        emb.weight.grad = None
        (emb(env[p + "idx"]) * env[p + "up"]).sum().backward()

    def step(p, name):
        backward(p)
        env[p + "opts"][name].step()

    for p in ("e", "t"):  # the results agree before they are timed
        backward(p)
    ge, gt = env["eemb"].weight.grad, env["temb"].weight.grad
    assert np.array_equal(ge._indices().numpy(), gt._indices().numpy())
    assert np.allclose(ge._values().numpy(), gt._values().numpy(), rtol=1e-6)
    kw = dict(repeat=3, min_time=0.2, rounds=5)
    compare("lookup + backward (sparse grad)", lambda: backward("e"), lambda: backward("t"), **kw)
    for name in ("SGD", "Adagrad", "SparseAdam"):
        compare(f"... + {name} step", lambda n=name: step("e", n), lambda n=name: step("t", n), **kw)


if __name__ == "__main__":
    main()

"""Scatter family: scatter_add of 1M values into 1024 bins, masked_select of 16M float32 with a random ~50% mask.

Prints ember's speed as a ratio to torch's (higher is better). Targets (issue 10): scatter_add at least 1.5x,
masked_select at least 3x (torch 2.13 here, 2 threads: 0.85 ms and 291 ms).
"""
import numpy as np
import torch

import ember
from common import compare

N = 1 << 20
M = 16 * 1024 * 1024


def main():
    torch.set_num_threads(ember.get_num_threads())
    rng = np.random.default_rng(0)
    index = rng.integers(0, 1024, N)
    values = rng.random(N, dtype=np.float32)
    data = rng.random(M, dtype=np.float32)
    mask = rng.random(M) < 0.5
    env = {"ember": ember, "torch": torch,
           "ei": ember.from_numpy(index), "ti": torch.from_numpy(index),
           "ev": ember.from_numpy(values), "tv": torch.from_numpy(values),
           "ez": ember.zeros(1024), "tz": torch.zeros(1024),
           "ex": ember.from_numpy(data), "tx": torch.from_numpy(data),
           "em": ember.from_numpy(mask), "tm": torch.from_numpy(mask)}
    # the results agree before they are timed
    e, t = ember.scatter_add(env["ez"], 0, env["ei"], env["ev"]), torch.scatter_add(env["tz"], 0, env["ti"], env["tv"])
    assert np.allclose(e.numpy(), t.numpy(), rtol=1e-4)
    assert np.array_equal(ember.masked_select(env["ex"], env["em"]).numpy(), torch.masked_select(env["tx"], env["tm"]).numpy())
    compare("scatter_add, 1M values into 1024 bins", "ember.scatter_add(ez, 0, ei, ev)",
            "torch.scatter_add(tz, 0, ti, tv)", globals=env, repeat=5, min_time=0.05)
    compare("masked_select, 16M f32, ~50% mask", "ember.masked_select(ex, em)", "torch.masked_select(tx, tm)",
            globals=env, repeat=3, min_time=0.3, rounds=5)


if __name__ == "__main__":
    main()

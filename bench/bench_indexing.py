"""Advanced indexing: x[mask] over 1M float32, x[idx] gathering 100K random elements, w[labels]
picking 128 rows of a (1000, 512) table, and x[mask] = 0. Prints ember's speed as a ratio to torch's.
"""
import torch

import ember
from common import compare


def main():
    torch.set_num_threads(ember.get_num_threads())
    env = {}
    for m, p in ((ember, "e"), (torch, "t")):
        g = m.Generator().manual_seed(0)
        env[p + "x"] = m.randn(1 << 20, generator=g)
        env[p + "mask"] = env[p + "x"] > 0
        env[p + "idx"] = m.randint(0, 1 << 20, (100000,), generator=g)
        env[p + "w"] = m.randn(1000, 512, generator=g)
        env[p + "lab"] = m.randint(0, 1000, (128,), generator=g)
        env[p + "y"] = env[p + "x"].clone()
    kw = dict(globals=env, min_time=0.1)
    compare("x[mask], 1M float32", "ex[emask]", "tx[tmask]", **kw)
    compare("x[idx], 100K of 1M", "ex[eidx]", "tx[tidx]", **kw)
    compare("w[labels], 128 rows of 512", "ew[elab]", "tw[tlab]", **kw)
    compare("y[mask] = 0, 1M float32", "ey.__setitem__(emask, 0.0)", "ty.__setitem__(tmask, 0.0)", **kw)


if __name__ == "__main__":
    main()

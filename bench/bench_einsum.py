"""einsum: attention scores 'bhqd,bhkd->bhqk' on (8, 8, 512, 64) float32, and a few other contractions.

Prints ember's speed as a ratio to torch's (higher is better). Target (issue 10): at least 1.5x for attention.
"""
import numpy as np
import torch

import ember
from common import compare, median_time


def main():
    torch.set_num_threads(ember.get_num_threads())
    rng = np.random.default_rng(0)
    q, k = (rng.standard_normal((8, 8, 512, 64), dtype=np.float32) for _ in range(2))
    env = {"ember": ember, "torch": torch, "eq": ember.from_numpy(q), "ek": ember.from_numpy(k),
           "tq": torch.from_numpy(q), "tk": torch.from_numpy(k)}
    e = ember.einsum("bhqd,bhkd->bhqk", env["eq"], env["ek"])
    t = torch.einsum("bhqd,bhkd->bhqk", env["tq"], env["tk"])
    assert np.allclose(e.numpy(), t.numpy(), rtol=1e-4, atol=1e-4), "einsum results differ"
    kw = dict(globals=env, repeat=3, min_time=0.2)
    compare("einsum bhqd,bhkd->bhqk (8,8,512,64)", "ember.einsum('bhqd,bhkd->bhqk', eq, ek)",
            "torch.einsum('bhqd,bhkd->bhqk', tq, tk)", **kw)
    flops = 2 * 64 * 512 * 512 * 64
    gf = {lib: flops / median_time(f"{lib}.einsum('bhqd,bhkd->bhqk', {lib[0]}q, {lib[0]}k)", **kw) / 1e9
          for lib in ("ember", "torch")}
    print(f"  attention scores at {gf['ember']:.0f} GFLOP/s (torch {gf['torch']:.0f} GFLOP/s)")
    compare("einsum bhqk,bhkd->bhqd (8,8,512,64)", "ember.einsum('bhqk,bhkd->bhqd', es, eq)",
            "torch.einsum('bhqk,bhkd->bhqd', ts, tq)", **dict(kw, globals=dict(env, es=e, ts=t)))
    compare("einsum bij->bji transpose copy", "ember.einsum('bij->bji', eq[0]).contiguous()",
            "torch.einsum('bij->bji', tq[0]).contiguous()", **kw)


if __name__ == "__main__":
    main()

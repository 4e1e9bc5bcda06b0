"""lerp, addcmul and addcdiv (the optimizers' and EMA updates' building blocks): one pass each, fresh output and in
place, on 16M float32 elements, against torch in one process.

Prints ember's speed as a ratio to torch's (higher is better) and the memory traffic of each call as a share of the
copy bandwidth measured in the same run, the limit for these memory-bound ops. Traffic counts each array read, and a
written array twice (the cache reads a line before writing it): copy_ moves 3 arrays, a.lerp_(b, 0.3) 3, lerp(a, b,
w) 5.
"""
import numpy as np
import torch

import ember
from common import compare, median_time

N = 16 << 20


def main():
    torch.set_num_threads(ember.get_num_threads())
    rng = np.random.default_rng(0)
    arrays = [rng.random(N, dtype=np.float32) for _ in range(3)]
    env = {"ember": ember, "torch": torch}
    for p, m in (("e", ember), ("t", torch)):
        env[p + "a"], env[p + "b"], env[p + "w"] = (m.from_numpy(a.copy()) for a in arrays)
    cases = [  # (name, statement with m for the module and x_ for the operands, arrays of traffic)
        ("lerp(a, b, 0.3)", "m.lerp(xa, xb, 0.3)", 4),
        ("lerp(a, b, w)", "m.lerp(xa, xb, xw)", 5),
        ("addcmul(a, b, w, value=0.5)", "m.addcmul(xa, xb, xw, value=0.5)", 5),
        ("addcdiv(a, b, w, value=0.5)", "m.addcdiv(xa, xb, xw, value=0.5)", 5),
        ("a.lerp_(b, 0.3)", "xa.lerp_(xb, 0.3)", 3),
        ("a.lerp_(b, w)", "xa.lerp_(xb, xw)", 4),
        ("a.addcmul_(b, w, value=0.5)", "xa.addcmul_(xb, xw, value=0.5)", 4),
        ("a.addcdiv_(b, w, value=0.5)", "xa.addcdiv_(xb, xw, value=0.5)", 4),
    ]
    # the limit: the faster of the two libraries' copy_ into an existing tensor (both threaded)
    env["eo"], env["to"] = ember.empty(N), torch.empty(N)
    copy_s = min(median_time(f"{p}o.copy_({p}a)", globals=env, min_time=0.2) for p in "et")
    copy_bw = 3 * N * 4 / copy_s
    print(f"  copy bandwidth {copy_bw / 1e9:.1f} GB/s")
    for name, stmt, arrays_moved in cases:
        e_stmt = stmt.replace("m.", "ember.").replace("x", "e")
        t_stmt = stmt.replace("m.", "torch.").replace("x", "t")
        compare(name, e_stmt, t_stmt, globals=env, repeat=5, min_time=0.1)
        bw = arrays_moved * N * 4 / median_time(e_stmt, globals=env, min_time=0.1)
        print(f"    ember moves {bw / 1e9:.1f} GB/s = {100 * bw / copy_bw:.0f}% of copy bandwidth")


if __name__ == "__main__":
    main()

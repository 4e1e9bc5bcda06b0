"""Elementwise engine: per-op overhead and memory-bound throughput (issue 3 targets).

Prints ember's speed as a ratio to torch's (higher is better) and the copy bandwidth measured in
the same run, the limit for a memory-bound op.
"""
import numpy as np
import torch

import ember
from common import compare, median_time

N = 16 * 1024 * 1024


def main():
    torch.set_num_threads(ember.get_num_threads())
    env = {"ea": ember.ones(1), "eb": ember.ones(1), "ta": torch.ones(1), "tb": torch.ones(1)}
    compare("a + b, 1 element", "ea + eb", "ta + tb", globals=env)
    compare("a * 2.5, 1 element", "ea * 2.5", "ta * 2.5", globals=env)

    big = {"ea": ember.rand(N), "eb": ember.rand(N), "ta": torch.rand(N), "tb": torch.rand(N)}
    big["eo"], big["to"] = ember.empty(N), torch.empty(N)
    kw = dict(globals=big, repeat=5, min_time=0.3)
    for op in ("+", "*"):
        compare(f"c = a {op} b, 16M f32 (fresh output)", f"ea {op} eb", f"ta {op} tb", **kw)
    r_add = compare("add(a, b, out=c), 16M f32", "ember.add(ea, eb, out=eo)", "torch.add(ta, tb, out=to)",
                    globals=dict(big, ember=ember, torch=torch), repeat=5, min_time=0.3)
    compare("mul(a, b, out=c), 16M f32", "ember.mul(ea, eb, out=eo)", "torch.mul(ta, tb, out=to)",
            globals=dict(big, ember=ember, torch=torch), repeat=5, min_time=0.3)

    for op in ("exp", "tanh", "sigmoid", "gelu", "sqrt"):
        torch_op = "torch.nn.functional.gelu" if op == "gelu" else f"torch.{op}"
        compare(f"{op}, 16M f32", f"ember.{op}(ea)", f"{torch_op}(ta)", globals=dict(big, ember=ember, torch=torch),
                repeat=5, min_time=0.3)

    src, dst = np.ones(N, dtype=np.float32), np.empty(N, dtype=np.float32)
    copy_bw = 2 * src.nbytes / median_time(lambda: np.copyto(dst, src), min_time=0.3)
    t = median_time(lambda: ember.add(big["ea"], big["eb"], out=big["eo"]), min_time=0.3)
    add_bw = 3 * N * 4 / t
    print(f"  copy bandwidth (read+write) {copy_bw / 1e9:.1f} GB/s; ember add out= moves {add_bw / 1e9:.1f} GB/s "
          f"= {100 * add_bw / copy_bw:.0f}% of it (add/torch ratio {r_add:.2f}x)")


if __name__ == "__main__":
    main()

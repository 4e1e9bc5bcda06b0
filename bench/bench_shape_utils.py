"""Shape utilities that copy: flip, roll, repeat, tile, tril/triu of a 4096x4096 float32 (clone for scale).

Prints ember's speed as a ratio to torch's (higher is better). Target (issue 10): not slower than torch.
"""
import torch

import ember
from common import compare


def main():
    torch.set_num_threads(ember.get_num_threads())
    env = {"ember": ember, "torch": torch, "e": ember.rand(4096, 4096), "t": torch.rand(4096, 4096)}
    kw = dict(globals=env, repeat=5, min_time=0.1)
    for label, call in [("clone", "{m}.clone({x})"), ("flip dim 0", "{m}.flip({x}, (0,))"),
                        ("flip dim 1", "{m}.flip({x}, (1,))"), ("roll 7 along dim 1", "{m}.roll({x}, 7, 1)"),
                        ("roll 7 flattened", "{m}.roll({x}, 7)"), ("repeat (2, 1)", "{x}.repeat(2, 1)"),
                        ("tile (2, 2)", "{m}.tile({x}, (2, 2))"), ("tril", "{m}.tril({x})"), ("triu(1)", "{m}.triu({x}, 1)")]:
        compare(f"{label}, 4096^2 f32", call.format(m="ember", x="e"), call.format(m="torch", x="t"), **kw)


if __name__ == "__main__":
    main()

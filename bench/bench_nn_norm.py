"""nn normalisation and dropout: batch_norm forward + backward on (64, 32, 32, 32) float32 in training mode,
layer_norm forward (and forward + backward) on (4096, 1024), dropout on 16M float32.

Prints ember's speed as a ratio to torch's (higher is better). Target (issue 11): at least 1.2x.
"""
import torch

import ember
from common import compare


def main():
    torch.set_num_threads(ember.get_num_threads())
    env = {"ember": ember, "torch": torch, "EF": ember.nn.functional, "TF": torch.nn.functional}
    for lib, m in (("e", ember), ("t", torch)):
        env[lib + "x"] = m.randn(64, 32, 32, 32, requires_grad=True)
        env[lib + "w"] = m.ones(32, requires_grad=True)
        env[lib + "b"] = m.zeros(32, requires_grad=True)
        env[lib + "rm"], env[lib + "rv"] = m.zeros(32), m.ones(32)
        env[lib + "l"] = m.randn(4096, 1024, requires_grad=True)
        env[lib + "lw"], env[lib + "lb"] = m.ones(1024, requires_grad=True), m.zeros(1024, requires_grad=True)
        env[lib + "d"] = m.randn(16 * 1024 * 1024)
    kw = dict(globals=env, repeat=5, min_time=0.2)
    compare("batch_norm fwd+bwd (64, 32, 32, 32) f32, training",
            "EF.batch_norm(ex, erm, erv, ew, eb, True).sum().backward()",
            "TF.batch_norm(tx, trm, trv, tw, tb, True).sum().backward()", **kw)
    with torch.no_grad(), ember.no_grad():
        compare("batch_norm fwd (64, 32, 32, 32) f32, training", "EF.batch_norm(ex, erm, erv, ew, eb, True)",
                "TF.batch_norm(tx, trm, trv, tw, tb, True)", **kw)
        compare("layer_norm fwd (4096, 1024) f32", "EF.layer_norm(el, (1024,), elw, elb)",
                "TF.layer_norm(tl, (1024,), tlw, tlb)", **kw)
    compare("layer_norm fwd+bwd (4096, 1024) f32", "EF.layer_norm(el, (1024,), elw, elb).sum().backward()",
            "TF.layer_norm(tl, (1024,), tlw, tlb).sum().backward()", **kw)
    compare("dropout p=0.5, 16M f32", "EF.dropout(ed, 0.5)", "TF.dropout(td, 0.5)", **kw)


if __name__ == "__main__":
    main()

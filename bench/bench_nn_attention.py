"""scaled_dot_product_attention on (8, 8, 512, 64) float32: forward (torch: its flash CPU kernel) and forward +
backward (torch: its math path, as Ember's).

Prints ember's speed as a ratio to torch's (higher is better). Target (issue 11): at least 1.2x.
"""
import torch

import ember
from common import compare


def main():
    torch.set_num_threads(ember.get_num_threads())
    env = {"EF": ember.nn.functional, "TF": torch.nn.functional}
    for lib, m in (("e", ember), ("t", torch)):
        for name in "qkv":
            env[lib + name] = m.randn(8, 8, 512, 64, requires_grad=True)
    kw = dict(globals=env, repeat=5, min_time=0.2)
    with torch.no_grad(), ember.no_grad():
        compare("sdpa fwd (8, 8, 512, 64) f32", "EF.scaled_dot_product_attention(eq, ek, ev)",
                "TF.scaled_dot_product_attention(tq, tk, tv)", **kw)
        compare("sdpa fwd causal (8, 8, 512, 64) f32", "EF.scaled_dot_product_attention(eq, ek, ev, is_causal=True)",
                "TF.scaled_dot_product_attention(tq, tk, tv, is_causal=True)", **kw)
    compare("sdpa fwd+bwd (8, 8, 512, 64) f32", "EF.scaled_dot_product_attention(eq, ek, ev).sum().backward()",
            "TF.scaled_dot_product_attention(tq, tk, tv).sum().backward()", **kw)


if __name__ == "__main__":
    main()

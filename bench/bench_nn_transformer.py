"""Attention: a TransformerEncoderLayer (d_model 256, nhead 8, dim_feedforward 1024, seq 128, batch 32, batch_first,
dropout 0.1, training) forward + backward, and MultiheadAttention forward (need_weights True and False).

Both libraries run the same weights (torch's state_dict loaded into Ember). Prints ember's speed as a ratio to
torch's (higher is better).
"""
import torch

import ember
import ember.nn as enn
from common import compare

D, H, FF, L, N = 256, 8, 1024, 128, 32


def to_ember(t):
    return ember.from_numpy(t.detach().numpy().copy())


def main():
    torch.set_num_threads(ember.get_num_threads())
    torch.manual_seed(0)
    tl = torch.nn.TransformerEncoderLayer(D, H, FF, batch_first=True)
    el = enn.TransformerEncoderLayer(D, H, FF, batch_first=True)
    el.load_state_dict({k: to_ember(v) for k, v in tl.state_dict().items()})
    x = torch.randn(N, L, D)
    tx, ex = x.clone().requires_grad_(True), to_ember(x).requires_grad_(True)

    def step(layer, inp):
        layer.zero_grad()
        layer(inp).sum().backward()

    env = {"step": step, "el": el, "tl": tl, "ex": ex, "tx": tx}
    kw = dict(globals=env, repeat=3, min_time=0.2, rounds=5)
    compare("EncoderLayer fwd+bwd (train)", "step(el, ex)", "step(tl, tx)", **kw)

    tm = torch.nn.MultiheadAttention(D, H, batch_first=True)
    em = enn.MultiheadAttention(D, H, batch_first=True)
    em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})
    env.update({"em": em, "tm": tm, "eq": to_ember(x), "tq": x, "torch": torch, "ember": ember})
    compare("MHA forward, need_weights", "em(eq, eq, eq)", "tm(tq, tq, tq)", **kw)
    compare("MHA forward, no weights", "em(eq, eq, eq, need_weights=False)",
            "tm(tq, tq, tq, need_weights=False)", **kw)
    em.eval()
    tm.eval()
    # torch's eval + no_grad takes its fused fast path (_native_multi_head_attention)
    compare("MHA forward, eval no_grad", "with ember.no_grad(): em(eq, eq, eq, need_weights=False)",
            "with torch.no_grad(): tm(tq, tq, tq, need_weights=False)", **kw)


if __name__ == "__main__":
    main()

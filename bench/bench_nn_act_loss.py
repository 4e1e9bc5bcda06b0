"""nn activations and losses (issue 11): relu and gelu forward + backward on 16M float32, cross_entropy forward +
backward on (128, 10) and (256, 32000) logits.

Gradients are taken with autograd.grad (the op's forward and backward nodes, not .grad accumulation). Prints
ember's speed as a ratio to torch's (higher is better). Target: at least 1.2x.
"""
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from common import compare

N = 16 * 1024 * 1024


def env_for(lib, F, seed):
    lib.manual_seed(seed)
    x = lib.randn(N).requires_grad_()
    return {"F": F, "lib": lib, "x": x, "g": lib.randn(N),
            "s": lib.randn(128, 10).requires_grad_(), "st": lib.randint(0, 10, (128,)),
            "l": lib.randn(256, 32000).requires_grad_(), "lt": lib.randint(0, 32000, (256,))}


def main():
    torch.set_num_threads(ember.get_num_threads())
    e, t = env_for(ember, EF, 0), env_for(torch, TF, 0)
    env = {"ember": ember, "torch": torch, **{"e" + k: v for k, v in e.items()}, **{"t" + k: v for k, v in t.items()}}
    kw = dict(globals=env, repeat=3, min_time=0.2)
    ratios = [
        compare("relu fwd+bwd, 16M f32", "ember.autograd.grad(eF.relu(ex), ex, eg)",
                "torch.autograd.grad(tF.relu(tx), tx, tg)", **kw),
        compare("gelu fwd+bwd, 16M f32", "ember.autograd.grad(eF.gelu(ex), ex, eg)",
                "torch.autograd.grad(tF.gelu(tx), tx, tg)", **kw),
        compare("cross_entropy fwd+bwd, (128, 10)", "ember.autograd.grad(eF.cross_entropy(es, est), es)",
                "torch.autograd.grad(tF.cross_entropy(ts, tst), ts)", **kw),
        compare("cross_entropy fwd+bwd, (256, 32000)", "ember.autograd.grad(eF.cross_entropy(el, elt), el)",
                "torch.autograd.grad(tF.cross_entropy(tl, tlt), tl)", **kw),
    ]
    # torch's OpenMP team can stall a tiny op for milliseconds on a loaded machine: also against one torch thread
    torch.set_num_threads(1)
    compare("cross_entropy (128, 10), torch 1 thread", "ember.autograd.grad(eF.cross_entropy(es, est), es)",
            "torch.autograd.grad(tF.cross_entropy(ts, tst), ts)", **kw)
    torch.set_num_threads(ember.get_num_threads())
    compare("relu fwd, 16M f32", "eF.relu(ex.detach())", "tF.relu(tx.detach())", **kw)
    compare("cross_entropy fwd, (256, 32000)", "eF.cross_entropy(el.detach(), elt)",
            "tF.cross_entropy(tl.detach(), tlt)", **kw)
    print(f"lowest ratio {min(ratios):.2f}x (target 1.2x)")


if __name__ == "__main__":
    main()

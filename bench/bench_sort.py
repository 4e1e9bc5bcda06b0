"""Order statistics: sort of 1M float32, topk(k=50) of (1024, 32000) float32, unique with counts of 1M int64.

Prints ember's speed as a ratio to torch's (higher is better). Targets (issue 10, 2 threads): sort and topk at
least 3x torch's speed, unique at least 1.5x. Each result is checked against torch's before timing.
"""
import torch

import ember
from common import compare

N = 1 << 20


def main():
    torch.set_num_threads(ember.get_num_threads())
    t_sort = torch.randn(N)
    t_topk = torch.randn(1024, 32000)
    t_uniq = torch.randint(0, 100000, (N,))
    env = {"ember": ember, "torch": torch, "ts": t_sort, "es": ember.from_numpy(t_sort.numpy()),
           "tk": t_topk, "ek": ember.from_numpy(t_topk.numpy()),
           "tu": t_uniq, "eu": ember.from_numpy(t_uniq.numpy())}
    check(env)
    kw = dict(globals=env, repeat=3, min_time=0.2)
    print(f"threads: {ember.get_num_threads()}")
    compare("sort, 1M f32", "ember.sort(es)", "torch.sort(ts)", **kw)
    compare("topk(k=50) of (1024, 32000) f32", "ember.topk(ek, 50)", "torch.topk(tk, 50)", **kw)
    compare("unique(return_counts), 1M int64", "ember.unique(eu, return_counts=True)",
            "torch.unique(tu, return_counts=True)", **kw)


def check(env):
    """The timed calls give torch's values and indices."""
    pairs = [("ember.sort(es)", "torch.sort(ts, stable=True)"),  # ember sorts stably
             ("ember.topk(ek, 50)", "torch.topk(tk, 50)"),
             ("ember.unique(eu, return_counts=True)", "torch.unique(tu, return_counts=True)")]
    for e_stmt, t_stmt in pairs:
        for e, t in zip(eval(e_stmt, env), eval(t_stmt, env)):
            assert torch.equal(torch.from_numpy(e.numpy()), t), e_stmt


if __name__ == "__main__":
    main()

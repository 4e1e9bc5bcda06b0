"""Leak soak: thousands of iterations of training steps, indexing, creation, views, in-place ops,
copies and pickling, with the process RSS and Ember's allocator statistics flat after a warm-up."""
import copy
import gc
import os
import pickle
import time

import pytest

import ember

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def allocated_bytes():
    return ember._C._cpu_memory_stats()["allocated_bytes.all.current"]


def make_step():
    g = ember.Generator().manual_seed(0)
    w1 = (ember.randn(32, 64, generator=g) * 0.1).requires_grad_()
    w2 = (ember.randn(64, 10, generator=g) * 0.1).requires_grad_()
    x = ember.randn(16, 32, generator=g)
    idx = ember.randint(0, 16, (24,), generator=g)
    mask = x[:, 0] > 0

    def step(i):
        # forward/backward of a small MLP, then an SGD update without the graph
        loss = ((x @ w1).relu() @ w2).sum()
        loss.backward()
        with ember.no_grad():
            for w in (w1, w2):
                w -= 1e-4 * w.grad
                w.grad = None
        # indexing reads and writes, views, in-place ops, creation
        y = x[idx].clone()
        y[idx[:4] % 16] = 1.0
        y[y > 1] *= 0.5
        z = x[mask]
        v = x.t()[1:, ::2].unsqueeze(0).expand(2, -1, -1)
        v.sum().item()
        ember.cat([y, x], 0).add_(1).mul_(0.5).exp_()
        ember.zeros(100, 10).index_put_((idx % 100,), ember.ones(24, 10), accumulate=True)
        ember.arange(i % 50 + 1.0).reshape(-1, 1).tolist()
        # copies, pickling
        pickle.loads(pickle.dumps([w1.detach(), v]))
        copy.deepcopy([w1, x, x[:3]])
        return z.numel()

    return step


def run(step, start, count):
    for i in range(start, start + count):
        step(i)
    gc.collect()


@pytest.mark.release_build
def test_memory_is_flat_over_thousands_of_iterations():
    step = make_step()
    run(step, 0, 300)  # warm-up: caches, allocator pools, the interpreter's own arenas
    rss0, alloc0 = rss_bytes(), allocated_bytes()
    deadline = time.perf_counter() + 12  # beyond the first 1000 iterations (a loaded machine runs only those)
    iterations = 0
    while iterations < 1000 or (iterations < 5000 and time.perf_counter() < deadline):
        run(step, iterations, 100)
        iterations += 100
    rss_growth, alloc_growth = rss_bytes() - rss0, allocated_bytes() - alloc0
    # A leak of even one small tensor per iteration would show: 1000 x (>= 64 bytes + its objects).
    assert alloc_growth <= 0, alloc_growth
    assert rss_growth < 4 << 20, (rss_growth, iterations)

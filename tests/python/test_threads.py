"""The thread pool: thread count control, results independent of it, and fork safety."""
import os

import pytest
import torch

import ember
from conftest import assert_same


def test_set_num_threads_gives_same_results():
    x = ember.rand(512, 300)
    results = []
    for n in (1, 2):
        ember.set_num_threads(n)
        assert ember.get_num_threads() == n
        results.append(((x @ x.t()).sum(1), x.exp().sum(), x.t().contiguous()))
    ember.set_num_threads(os.cpu_count())
    for a, b in zip(*results):
        assert_same(a, torch.from_numpy(b.numpy()), check_strides=False, rtol=1e-5, atol=1e-3)
    with pytest.raises(RuntimeError):
        ember.set_num_threads(0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_parallel_work_after_fork():
    x = ember.rand(2048, 2048)
    x.t().contiguous()  # the parent's pool exists and has run work
    pid = os.fork()
    if pid == 0:  # child: parallel ops must not wait on the parent's workers
        ok = abs((x.t().contiguous().sum() - x.sum()).item()) < 1.0 and (x @ x).shape == (2048, 2048)
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0

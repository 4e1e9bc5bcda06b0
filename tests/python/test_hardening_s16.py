"""Regression tests for session 16's fuzz findings: normalisation and pooling results that were views of a private
temporary (an in-place op on them then recorded AsStridedBackward0 instead of its own node), and out= checks that ran
before torch's dim checks."""
import pytest
import torch

import ember

NORMS = {
    "group_norm": lambda m, x: m.nn.functional.group_norm(x, 1),
    "layer_norm": lambda m, x: m.nn.functional.layer_norm(x, (2,)),
    "batch_norm": lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True),
    "batch_norm_eval": lambda m, x: m.nn.functional.batch_norm(x, m.zeros(2), m.ones(2)),
    "instance_norm": lambda m, x: m.nn.functional.instance_norm(x),
    "max_pool1d": lambda m, x: m.nn.functional.max_pool1d(x, 1),
}


@pytest.mark.parametrize("name", list(NORMS))
def test_results_are_views_only_where_torch_s_are(name):
    seen = []
    for m in (torch, ember):
        x = m.tensor([[[-2.23, 1.0], [0.5, 0.25]]]).expand(3, 2, 2)
        y = NORMS[name](m, x)
        is_view = y._base is not None
        w = m.tensor([2.64], dtype=m.float64, requires_grad=True)
        y *= w.permute(0)  # the fuzz program: an in-place op on the result records its own node, or rebases a view
        seen.append((is_view, type(y.grad_fn).__name__))
    assert seen[0] == seen[1], seen  # torch's instance_norm is a view of its batch_norm; the others are not


@pytest.mark.parametrize("call", [
    lambda m: m.log_softmax(m.ones(4), -2, out=m.zeros(4, dtype=m.int8)),
    lambda m: m.softmax(m.ones(()), 1, out=m.zeros(0, dtype=m.int64)),
    lambda m: m.baddbmm(m.ones(0, 1, 4, dtype=m.float64), m.ones(0, dtype=m.float64), m.ones(0, dtype=m.float64),
                        out=m.zeros(0, dtype=m.int64)),
])
def test_out_checks_after_dims(call):
    """A bad dim or rank raises torch's IndexError/RuntimeError before out's dtype is looked at."""
    errors = []
    for m in (torch, ember):
        with pytest.raises(Exception) as info:
            call(m)
        errors.append(type(info.value))
    assert errors[0] is errors[1], errors

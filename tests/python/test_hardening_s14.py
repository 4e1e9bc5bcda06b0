"""Regression tests for what session 14's fuzzing and probing found."""
import pytest
import torch

import ember

# Results that ember built as a view of a temporary (a reshaped accumulator, a squeezed product) while torch's are
# new tensors: an in-place op with a grad-requiring operand recorded a view rebase (AsStridedBackward0 over
# CopySlices) instead of its own node.
RESULTS = {
    "sum_dim": lambda m, x: x.sum(0), "sum_keepdim": lambda m, x: x.sum(0, keepdim=True), "mean": lambda m, x: x.mean(0),
    "prod": lambda m, x: x.prod(0), "amax": lambda m, x: x.amax(0), "logsumexp": lambda m, x: x.logsumexp(0),
    "max_dim": lambda m, x: x.max(0)[0], "min_dim": lambda m, x: x.min(0).values, "median": lambda m, x: x.median(0)[0],
    "nanmedian": lambda m, x: x.nanmedian(0)[0], "kthvalue": lambda m, x: x.kthvalue(2, 0)[0],
    "mode": lambda m, x: x.mode(0)[0], "mv": lambda m, x: x.mv(m.ones(4)), "matmul_vec": lambda m, x: x.matmul(m.ones(4)),
    "unique": lambda m, x: m.unique(x), "quantile": lambda m, x: x.quantile(0.5, dim=0),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_in_place_on_an_op_result_records_its_own_node(name):
    grads = []
    for m in (torch, ember):
        gen = torch.Generator().manual_seed(0)
        x = m.tensor(torch.randn(3, 4, generator=gen).tolist())
        w = m.tensor([1.5], requires_grad=True)
        y = RESULTS[name](m, x)
        y.mul_(w)
        assert y.grad_fn.name() == "MulBackward0"
        y.sum().backward()
        grads.append(w.grad.tolist())
    assert grads[0] == pytest.approx(grads[1], rel=1e-6)


def test_a_view_of_a_user_tensor_stays_a_view():
    x = ember.zeros(3, 4)
    w = ember.ones(1, requires_grad=True)
    y = x.view(12)
    y.add_(w)
    assert y.grad_fn.name() == "AsStridedBackward0" and x.grad_fn is not None


def test_base_and_is_view_follow_torch():
    # torch's _base and _is_view(): a view knows the root tensor it was made from; copies and new tensors do not
    x = ember.arange(24.).reshape(2, 3, 4)
    assert x._base is not None and x._base._base is None  # reshape of a new arange is a view of it, as torch's
    y = ember.ones(2, 3)
    for view in (y.t(), y[0], y[:, 1:], y.view(6), y.unsqueeze(0), y.expand(4, 2, 3), y.view(6)[2:]):
        assert view._is_view() and view._base is y
    for new in (y.clone(), y + 1, y.contiguous(), y.sum(0), y.t().contiguous()):
        assert not new._is_view() and new._base is None

"""Regressions for what session 20's fuzzing found, each against torch 2.13."""
import pytest
import torch

import ember

UNIQUES = {
    "unique": lambda m, x: m.unique(x),
    "unique_counts": lambda m, x: m.unique(x, return_counts=True),
    "unique_inverse": lambda m, x: m.unique(x, sorted=False, return_inverse=True),
    "unique_dim": lambda m, x: m.unique(x, dim=0),
    "unique_consecutive": lambda m, x: m.unique_consecutive(x, return_counts=True),
    "unique_consecutive_dim": lambda m, x: m.unique_consecutive(x, return_counts=True, dim=-1),
}


def graph(fn, m):
    """requires_grad and node name of each output, and what backward through the first raises."""
    x = m.tensor([1.0, 2.0, 2.0, 3.0], requires_grad=True)
    r = fn(m, x)
    r = r if isinstance(r, tuple) else (r,)
    meta = [(t.requires_grad, t.grad_fn.name() if t.grad_fn is not None else None) for t in r]
    try:
        r[0].sum().backward()
        raised = None
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        raised = (type(e).__name__, str(e))
    return meta, raised


@pytest.mark.parametrize("name", UNIQUES)
def test_unique_values_require_grad_without_a_formula(name):
    # torch records the values of unique(_consecutive) on a node whose backward raises; the other outputs are integers
    assert graph(UNIQUES[name], ember) == graph(UNIQUES[name], torch)


CUM_EXTREMA = {
    "empty_any_dim": lambda m: m.cummax(m.zeros(0, 3), 5),
    "empty_negative_dim": lambda m: m.cummin(m.zeros(2, 0), -9),
    "empty_grad": lambda m: m.cummax(m.zeros(0, 3, requires_grad=True), 5),
    "scalar_bad_dim": lambda m: m.cummax(m.tensor(1.0), -2),
    "nonempty_bad_dim": lambda m: m.cummin(m.zeros(2, 3), 5),
}


def cum_outcome(fn, m):
    try:
        values, indices = fn(m)
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e).__name__, str(e)
    return tuple(values.shape), str(indices.dtype), values.grad_fn.name() if values.grad_fn is not None else None


@pytest.mark.parametrize("name", CUM_EXTREMA)
def test_cummax_cummin_dim_checks_as_torch(name):
    # torch checks the dim only when there is something to scan (any dim of an empty tensor is accepted), and a
    # 0-dim tensor's with its own message
    assert cum_outcome(CUM_EXTREMA[name], ember) == cum_outcome(CUM_EXTREMA[name], torch)


COPIES = {
    "copy_into_fresh": lambda m, x: m.zeros(3).copy_(x),
    "copy_broadcast": lambda m, x: m.zeros(2, 3).copy_(x),
    "copy_other_dtype": lambda m, x: m.zeros(3, dtype=m.float64).copy_(x),
    "copy_over_history": lambda m, x: (x * 2).copy_(m.ones(3)),
    "diff_n0": lambda m, x: m.diff(x, n=0, prepend=m.tensor([0.5])),
    "cumulative_trapezoid_dx": lambda m, x: m.cumulative_trapezoid(x, dx=0.3),
}


def copy_graph(fn, m):
    x = m.tensor([1.0, 2.0, 4.0], requires_grad=True)
    r = fn(m, x)
    nexts = [n[0].name() if n[0] is not None else None for n in r.grad_fn.next_functions]
    (r * m.arange(1, r.numel() + 1, dtype=r.dtype).reshape(r.shape)).sum().backward()
    return r.grad_fn.name(), nexts, r.tolist(), x.grad.tolist()


@pytest.mark.parametrize("name", COPIES)
def test_copy_records_one_copy_node_as_torch(name):
    # self.copy_(src) was recorded as src's conversion and expansion (ExpandBackward0 <- ToCopyBackward0)
    assert copy_graph(COPIES[name], ember) == copy_graph(COPIES[name], torch)


def test_trapezoid_scales_by_a_number_as_torch():
    # torch's C++ composite multiplies by dx as a number (mul.Scalar): MulBackward1, as ember now records it
    graphs = []
    for m in (ember, torch):
        y = m.tensor([[1.0, 2.0, 4.0], [3.0, 0.1, 7.0]], requires_grad=True)
        r = m.trapezoid(y, dx=0.3)
        r.sum().backward()
        graphs.append((r.grad_fn.name(), r.grad_fn.next_functions[0][0].name(), r.tolist(), y.grad.tolist()))
    assert graphs[0] == graphs[1]


IN_PLACE_VIEWS = {
    "squeeze_": lambda m, x: x.clone().squeeze_(), "squeeze_dim": lambda m, x: x.clone().squeeze_(0),
    "squeeze_dims": lambda m, x: x.clone().squeeze_((0,)), "unsqueeze_": lambda m, x: x.clone().unsqueeze_(0),
    "t_": lambda m, x: x.clone().t_(), "transpose_": lambda m, x: x.clone().transpose_(0, 1),
    "quantile": lambda m, x: m.quantile(x, 0.5),
    "quantile_dims": lambda m, x: m.quantile(x, m.tensor([0.5, 0.2]), dim=1),
}


@pytest.mark.parametrize("name", IN_PLACE_VIEWS)
def test_in_place_view_ops_name_their_nodes_as_torch(name):
    # torch's in-place view ops have nodes of their own (SqueezeBackward4, TBackward1, ...); quantile ends in one
    out = []
    for m in (ember, torch):
        x = m.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        r = IN_PLACE_VIEWS[name](m, x)
        r.sum().backward()
        out.append((r.grad_fn.name(), r.tolist(), r.stride(), x.grad.tolist()))
    assert out[0] == out[1]

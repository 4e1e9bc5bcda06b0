"""Gradients of every differentiable op of the op database: ember's against torch's on float32 and float64 samples
of every layout, and ember.autograd.gradcheck (finite differences, float64) on each op's first sample."""
import pytest

import ember
import opdb
from opdb import torch_one_thread  # noqa: F401 - autouse fixture

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # torch.ger deprecated, degrees of freedom <= 0

GRAD_OPS = [op for op in opdb.OPS if op.grad]


def _grad_samples(op, dtype="float64"):
    return [s for s in op.samples(dtype) if not s.raises and opdb.forms_for(op, s) and s.tensors()]


def _params():
    for op in GRAD_OPS:
        for dtype in ("float32", "float64"):
            yield from opdb.params(op, dtype, [(s, "grad", None) for s in _grad_samples(op, dtype)])


@pytest.mark.parametrize("op,dtype,group", list(_params()))
def test_gradients(op, dtype, group):
    opdb.run_group(op, dtype, group, runner=opdb.run_grad_case)


@pytest.mark.parametrize("op", GRAD_OPS, ids=str)
def test_gradcheck(op):
    # finite differences perturb one element at a time: no stride-0 (expanded) leaves
    sample = next(s for s in _grad_samples(op)
                  if all(0 not in t.shape and t.layout != "expanded" for t in s.tensors()))
    leaves, _, rebuild = opdb.differentiable_call(op, ember, "float64", sample)
    assert ember.autograd.gradcheck(rebuild, leaves, eps=1e-6, atol=1e-5, rtol=1e-3)

"""Reductions beyond the op database's samples (test_opdb_*.py: ops x dtypes x dims x keepdim x layouts, empty
and 0-dim inputs): accuracy of long sums, NaN propagation and ties, error types."""
import numpy as np
import pytest
import torch

import ember
from conftest import outcome


def test_sum_is_accurate():
    assert ember.ones(2**24).sum().item() == 16777216.0
    for n in (10**6, 3 * 10**6 + 17):
        exact = torch.full((n,), 0.1).double().sum().item()
        ember_error = abs(ember.full((n,), 0.1).sum().item() - exact)
        torch_error = abs(torch.full((n,), 0.1).sum().item() - exact)
        ulp = np.spacing(np.float32(exact))
        assert ember_error <= 2 * torch_error + ulp, (ember_error, torch_error)
    big = ember.rand(4096, 4096)
    tb = torch.from_numpy(big.numpy())
    torch.testing.assert_close(torch.from_numpy(big.t().sum(0).numpy()), tb.t().sum(0), rtol=1e-5, atol=1e-3)
    torch.testing.assert_close(torch.from_numpy(big.sum(1).numpy()), tb.sum(1), rtol=1e-5, atol=1e-3)
    assert abs(big.mean().item() - tb.mean().item()) < 1e-6


@pytest.mark.release_build
@pytest.mark.parametrize("n", [127, 128, 1000, 2047, 2048, 2049, 4 * 512 * 4 + 77, 100_003])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sum_of_long_runs(n, dtype):
    # Long runs are summed as interleaved streams plus a tail: each element counted once, as accurately as torch.
    values = np.random.default_rng(n).standard_normal(n).astype(dtype) + 1
    exact = float(np.sum(values.astype(np.float64)))
    ember_error = abs(ember.from_numpy(values).sum().item() - exact)
    torch_error = abs(torch.from_numpy(values).sum().item() - exact)
    assert ember_error <= 2 * torch_error + np.spacing(values.dtype.type(exact)), (ember_error, torch_error)

def test_nan_propagation_and_ties():
    for m in (ember, torch):
        x = m.tensor([[1.0, float("nan"), 3.0], [2.0, 2.0, 1.0]])
        assert str(m.amax(x, 1).tolist()) == str([float("nan"), 2.0])
        assert m.argmax(x, 1).tolist() == [1, 0]
        assert m.max(x, 1).indices.tolist() == [1, 0]
    assert repr(ember.max(ember.tensor([[1, 5], [7, 2]]), 1)) == repr(torch.max(torch.tensor([[1, 5], [7, 2]]), 1))


def test_errors():
    for code in ["m.arange(6).mean()", "m.zeros(2, 3).sum(2)", "m.zeros(2, 3).sum((0, 0))", "m.zeros(0, 3).amax(0)",
                 "m.zeros(0).argmax()"]:
        et, ee = outcome(lambda: eval(code, {"m": torch})), outcome(lambda: eval(code, {"m": ember}))
        assert et[1] is not None and ee[1] is not None, code
        assert type(ee[1]).__name__ == type(et[1]).__name__, (code, ee[1], et[1])

"""softmax/log_softmax/logsumexp beyond the op database's samples (test_opdb_*.py covers var/std, norms,
count_nonzero, cumsum/cumprod, where, clamp, lerp, the float predicates, ... in every dtype and layout): large
and extreme inputs, allclose/equal."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same

rng = np.random.default_rng(5)
VALUES = rng.standard_normal((3, 4, 5)) * 3
TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 2e-2), "float32": (1e-5, 1e-5), "float64": (1e-11, 1e-11)}


def make(m, dtype="float32", layout="contiguous", values=VALUES):
    x = m.from_numpy(values.copy()).to(getattr(m, dtype))
    if layout == "transposed":
        return x.transpose(0, 2).contiguous().transpose(0, 2)
    return x


def compare(fn, dtype="float32", layout="contiguous", values=VALUES):
    def run(m):
        try:
            return fn(m, make(m, dtype, layout, values)), None
        except Exception as e:  # noqa: BLE001
            return None, e
    rt, et = run(torch)
    re_, ee = run(ember)
    if et is not None:
        assert ee is not None and type(ee).__name__ == type(et).__name__, (ee, et)
        return
    assert ee is None, ee
    pairs = zip(re_, rt) if isinstance(rt, tuple) else [(re_, rt)]
    for e, t in pairs:
        rtol, atol = TOL.get(str(t.dtype).replace("torch.", ""), (0, 0))
        assert_same(e, t, check_strides=False, rtol=rtol, atol=atol)


def test_softmax_stability_and_special_values():
    big = np.array([[1000.0, 1001.0, 999.0], [-np.inf, 0.0, 1.0], [np.inf, 1.0, 2.0], [np.nan, 1.0, 2.0]])
    for fn in (lambda m, x: m.softmax(x, 1), lambda m, x: m.log_softmax(x, 1), lambda m, x: m.logsumexp(x, 1)):
        compare(fn, "float32", "contiguous", big)
    compare(lambda m, x: m.logsumexp(x, 1), "float32", "contiguous", np.full((2, 3), -np.inf))



@pytest.mark.parametrize("shape", [(300, 1001), (2, 200_003), (1100, 257)])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_of_large_outputs(shape, log):
    # Outputs of 1 MB and more are written with streaming stores; odd row lengths leave rows unaligned.
    # Compared with float64: over 200K-element rows torch's float32 sum is off by up to 5e-5 relative.
    values = np.random.default_rng(0).standard_normal(shape).astype(np.float32) * 4
    fn = ember.log_softmax if log else ember.softmax
    exact = (torch.log_softmax if log else torch.softmax)(torch.from_numpy(values).double(), -1)
    got = torch.from_numpy(fn(ember.from_numpy(values), -1).numpy())
    torch.testing.assert_close(got.double(), exact, rtol=1e-5, atol=1e-6)

def test_allclose_equal():
    for m in (ember, torch):
        x = m.tensor([1.0, 2.0])
        assert m.allclose(x, x + 1e-9) and not m.allclose(x, x + 1)
        assert m.equal(x, x.clone()) and not m.equal(x, m.tensor([1.0, 2.0, 3.0]))

"""Dropout functions against torch: with the same manual_seed the masks and values are bitwise torch's (torch's CPU
bernoulli_ on this machine's non-Intel path), node names, in-place forms, eval identity, warnings and errors."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF

SHAPES = {"dropout": (4, 6, 5, 3), "dropout1d": (4, 6, 5), "dropout2d": (4, 6, 5, 3), "dropout3d": (2, 3, 2, 2, 2),
          "alpha_dropout": (4, 6, 5), "feature_alpha_dropout": (4, 6, 5, 2)}


def both(name, dtype, p=0.3, inplace=False, shape=None, grad=True):
    x = torch.randn(*(shape or SHAPES[name])).to(getattr(torch, dtype))
    xt = x.clone().requires_grad_(grad and not inplace)
    xe = ember.from_numpy(x.float().numpy()).to(getattr(ember, dtype)).requires_grad_(grad and not inplace)
    out = []
    for m, F, t in ((torch, TF, xt), (ember, EF, xe)):
        m.manual_seed(7)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append((t, getattr(F, name)(t, p, training=True, inplace=inplace)))
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name", list(SHAPES))
def test_masks_bitwise(name, dtype):
    (xt, yt), (xe, ye) = both(name, dtype)
    assert np.array_equal(ye.detach().float().numpy(), yt.detach().float().numpy())
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
    yt.sum().backward()
    ye.sum().backward()
    assert np.array_equal(xe.grad.float().numpy(), xt.grad.float().numpy())


@pytest.mark.parametrize("name", list(SHAPES))
def test_inplace(name):
    (xt, yt), (xe, ye) = both(name, "float32", inplace=True)
    assert ye is xe and yt is xt
    assert np.array_equal(xe.numpy(), xt.numpy())


def test_torch_forms_and_identity():
    x = torch.randn(1000)
    for name in ("dropout", "alpha_dropout", "feature_alpha_dropout", "feature_dropout"):
        xe = ember.from_numpy(x.numpy().reshape(10, 100).copy())
        xt = x.reshape(10, 100).clone()
        torch.manual_seed(1), ember.manual_seed(1)
        assert np.array_equal(getattr(ember, name)(xe, 0.4, True).numpy(), getattr(torch, name)(xt, 0.4, True).numpy())
        torch.manual_seed(2), ember.manual_seed(2)
        assert getattr(ember, name + "_")(xe, 0.4, True) is xe
        getattr(torch, name + "_")(xt, 0.4, True)
        assert np.array_equal(xe.numpy(), xt.numpy())
    xe = ember.ones(3)
    assert EF.dropout(xe, training=False) is xe and EF.dropout(xe, 0.0) is xe and EF.alpha_dropout(xe) is xe
    assert np.array_equal(EF.dropout(xe, 1.0).numpy(), np.zeros(3))


@pytest.mark.parametrize("call", [
    lambda m, F: F.dropout(m.ones(3), 1.5),
    lambda m, F: F.alpha_dropout(m.ones(3), -0.1),
    lambda m, F: F.dropout1d(m.ones(3), 0.5),
    lambda m, F: m.dropout(m.ones(3), 1.5, True),
    lambda m, F: m.feature_dropout(m.ones(3), 0.5, True),
    lambda m, F: F.dropout(m.ones(3, dtype=m.int64), 0.5),
])
def test_errors(call):
    got = []
    for m, F in ((torch, TF), (ember, EF)):
        try:
            call(m, F)
            got.append(None)
        except Exception as e:  # noqa: BLE001 - compared below
            got.append((type(e).__name__, str(e)))
    assert got[0] is not None and got[0] == got[1]


def test_warnings():
    for F, m in ((TF, torch), (EF, ember)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            F.dropout2d(m.ones(2, 3, 4), 0.5)
            F.dropout3d(m.ones(2, 3), 0.5)
        assert [str(x.message)[:40] for x in w] == ["dropout2d: Received a 3D input to dropou",
                                                    "dropout3d: Received a 2-D input to dropo"]

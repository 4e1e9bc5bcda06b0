"""scaled_dot_product_attention against torch beyond the op database: dropout masks for a seed, torch's node name,
gradients through fully masked rows, errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from conftest import assert_same


def conv(t):
    return ember.from_numpy(t.detach().numpy().copy())


@pytest.mark.parametrize("kw", [dict(dropout_p=0.4), dict(is_causal=True, dropout_p=0.2), dict(scale=-0.5),
                                dict(is_causal=True), dict(kv_heads=2, enable_gqa=True)])
def test_values_grads_and_dropout_masks(kw):
    """torch's node: its math path (UnsafeViewBackward0) with dropout, else its flash kernel's."""
    heads = kw.pop("kv_heads", 4)
    q = torch.randn(2, 4, 5, 8, dtype=torch.float64)
    k, v = (torch.randn(2, heads, 6, 8, dtype=torch.float64) for _ in range(2))
    ts = [t.clone().requires_grad_() for t in (q, k, v)]
    es = [conv(t).requires_grad_() for t in (q, k, v)]
    torch.manual_seed(3), ember.manual_seed(3)
    yt, ye = TF.scaled_dot_product_attention(*ts, **kw), EF.scaled_dot_product_attention(*es, **kw)
    node = "UnsafeViewBackward0" if "dropout_p" in kw else "ScaledDotProductFlashAttentionForCpuBackward0"
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__ == node
    up = torch.linspace(-1, 1, yt.numel(), dtype=torch.float64).reshape(yt.shape)
    yt.backward(up)
    ye.backward(conv(up))
    assert_same(ye.detach(), yt.detach(), rtol=1e-10, atol=1e-10)
    for e, t in zip(es, ts):
        assert_same(e.grad, t.grad, check_strides=False, rtol=1e-9, atol=1e-9)


def test_double_backward():
    """Ember's flash node differentiates again; torch's does not, so the reference is its math path (3-D inputs)."""
    q, k, v = (torch.randn(1, 2, 3, 4, dtype=torch.float64) for _ in range(3))
    res = []
    for m, F, xs in ((torch, TF, tuple(t[0] for t in (q, k, v))), (ember, EF, tuple(conv(t) for t in (q, k, v)))):
        leaves = [x.clone().requires_grad_() for x in xs]
        y = F.scaled_dot_product_attention(*leaves, is_causal=True)
        (gq,) = m.autograd.grad((y * y).sum(), leaves[0], create_graph=True)
        res.append([g.detach().numpy().reshape(2, 3, 4) for g in m.autograd.grad(gq.sum(), leaves)])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-8)


def test_fully_masked_rows_are_zero():
    mask = torch.ones(5, 6, dtype=torch.bool)
    mask[2] = False
    q, k, v = (torch.randn(3, 5 if i == 0 else 6, 4, dtype=torch.float64) for i in range(3))
    ts = [t.clone().requires_grad_() for t in (q, k, v)]
    es = [conv(t).requires_grad_() for t in (q, k, v)]
    yt = TF.scaled_dot_product_attention(*ts, attn_mask=mask)
    ye = EF.scaled_dot_product_attention(*es, attn_mask=conv(mask))
    assert np.array_equal(ye.detach().numpy()[:, 2], np.zeros((3, 4)))
    yt.sum().backward()
    ye.sum().backward()
    for e, t in zip(es, ts):
        assert_same(e.grad, t.grad, check_strides=False, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.scaled_dot_product_attention(m.ones(2, 3), m.ones(2, 3), m.ones(2, 3, dtype=m.float64)),
    lambda m: m.nn.functional.scaled_dot_product_attention(m.ones(3), m.ones(2, 3), m.ones(2, 3)),
    lambda m: m.nn.functional.scaled_dot_product_attention(m.ones(2, 3), m.ones(2, 3), m.ones(2, 3),
                                                           attn_mask=m.ones(2, 2, dtype=m.int64)),
    lambda m: m.nn.functional.scaled_dot_product_attention(m.ones(2, 3), m.ones(2, 3), m.ones(2, 3),
                                                           attn_mask=m.ones(2, 2, dtype=m.bool), is_causal=True),
])
def test_errors(call):
    got = []
    for m in (torch, ember):
        try:
            call(m)
            got.append(None)
        except Exception as e:  # noqa: BLE001 - compared below
            got.append((type(e).__name__, str(e)))
    assert got[0] is not None and got[0] == got[1]

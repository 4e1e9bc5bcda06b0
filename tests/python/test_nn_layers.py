"""pad, embedding and the distances against torch where the op database cannot reach: node names, embedding's
in-place max_norm renorm, torch's own forms (constant_pad_nd, embedding, embedding_renorm_), normalize's out=, and
errors with their messages."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from conftest import assert_same


def conv(t):
    return ember.from_numpy(t.detach().numpy().copy())


@pytest.mark.parametrize("mode,pad,shape,node", [
    ("constant", (1, 2, -1, 1), (2, 3, 4), "ConstantPadNdBackward0"),
    ("reflect", (1, 2), (3, 5), "ReflectionPad1DBackward0"),
    ("reflect", (1, 2, 2, 1), (2, 3, 4), "ReflectionPad2DBackward0"),
    ("reflect", (1, 0, 2, 1, 1, 1), (1, 2, 3, 4, 5), "ReflectionPad3DBackward0"),
    ("replicate", (3, 2), (2, 3, 4), "ReplicationPad1DBackward0"),
    ("replicate", (1, 2, 2, 1), (3, 4, 5), "ReplicationPad2DBackward0"),
    ("replicate", (1, 0, 2, 1, 1, 1), (2, 3, 4, 5), "ReplicationPad3DBackward0"),
    ("circular", (1, 2, 2, 1), (2, 3, 4, 5), "CopySlices"),
])
def test_pad_nodes_and_grads(mode, pad, shape, node):
    x = torch.randn(*shape, dtype=torch.float64)
    xt, xe = x.clone().requires_grad_(), conv(x).requires_grad_()
    yt, ye = TF.pad(xt, pad, mode=mode), EF.pad(xe, pad, mode=mode)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__ == node
    up = torch.linspace(-1, 1, yt.numel(), dtype=torch.float64).reshape(yt.shape)
    yt.backward(up)
    ye.backward(conv(up))
    assert_same(ye.detach(), yt.detach())
    assert_same(xe.grad, xt.grad, rtol=1e-12, atol=1e-12)


def test_embedding_max_norm_renorms_in_place():
    w = torch.randn(10, 4) * 3
    idx = torch.tensor([[1, 2, 4, 1], [4, 3, 2, 9]])
    wt, we = w.clone().requires_grad_(), conv(w).requires_grad_()
    yt = TF.embedding(idx, wt, max_norm=1.5, norm_type=3.0)
    ye = EF.embedding(conv(idx), we, max_norm=1.5, norm_type=3.0)
    assert_same(we.detach(), wt.detach(), rtol=1e-6, atol=1e-6)  # the rows used, scaled in place
    assert not np.array_equal(we.detach().numpy(), w.numpy())
    assert_same(ye.detach(), yt.detach(), rtol=1e-6, atol=1e-6)
    assert type(ye.grad_fn).__name__ == "EmbeddingBackward0"
    assert_same(ember.embedding_renorm_(conv(w), conv(idx), 1.0, 2.0), torch.embedding_renorm_(w.clone(), idx, 1.0, 2.0),
                rtol=1e-6, atol=1e-6)


def test_torch_forms():
    x = torch.randn(2, 3)
    assert_same(ember.constant_pad_nd(conv(x), (1, 2), 3.5), torch.constant_pad_nd(x, (1, 2), 3.5))
    w, idx = torch.randn(5, 2), torch.tensor([4, 0, 4])
    assert_same(ember.embedding(conv(w), conv(idx), 4), torch.embedding(w, idx, 4))
    out_t, out_e = torch.empty(0), ember.empty(0)
    assert EF.normalize(conv(x), out=out_e) is out_e
    assert_same(out_e, TF.normalize(x, out=out_t), rtol=1e-6, atol=1e-6)
    y = torch.randn(2, 3)
    assert_same(ember.cosine_similarity(conv(x), conv(y)), torch.cosine_similarity(x, y), rtol=1e-6, atol=1e-6)
    assert_same(ember.pairwise_distance(conv(x), conv(y)), torch.pairwise_distance(x, y), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda m, F: F.pad(m.ones(2, 3), (1, 2, 3)),
    lambda m, F: F.pad(m.ones(2, 3), (1,) * 6),
    lambda m, F: F.pad(m.ones(2, 3), (1, 1), mode="wrap"),
    lambda m, F: F.pad(m.ones(2, 3), (1, 1), mode="reflect", value=2.0),
    lambda m, F: F.pad(m.ones(2, 3, 4, 5), (1, 1), mode="reflect"),
    lambda m, F: F.pad(m.ones(3, 4, 5), (5, 1), mode="reflect"),
    lambda m, F: F.pad(m.ones(3, 0, 5), (1, 1), mode="replicate"),
    lambda m, F: F.pad(m.ones(3, 4, 5), (6, 1), mode="circular"),
    lambda m, F: F.pad(m.ones(3, 4), (-3, -2)),
    lambda m, F: F.embedding(m.tensor([1, 5]), m.ones(5, 2)),
    lambda m, F: F.embedding(m.tensor([1.0]), m.ones(5, 2)),
    lambda m, F: F.embedding(m.tensor([1]), m.ones(5)),
    lambda m, F: F.embedding(m.tensor([1]), m.ones(5, 2), padding_idx=5),
    lambda m, F: F.one_hot(m.tensor([1, -1])),
    lambda m, F: F.one_hot(m.tensor([1, 3]), 3),
    lambda m, F: F.one_hot(m.tensor([], dtype=m.int64)),
    lambda m, F: F.one_hot(m.tensor([1, 3], dtype=m.int32)),
    lambda m, F: F.cosine_similarity(m.ones(2, 3, dtype=m.int64), m.ones(2, 3, dtype=m.int64)),
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


@pytest.mark.parametrize("call", [
    lambda m, F: F.embedding_bag(m.tensor([1, 2]), m.ones(5, 2), m.tensor([0]), mode="mean", per_sample_weights=m.ones(2)),
    lambda m, F: F.embedding_bag(m.tensor([1, 2]), m.ones(5, 2), m.tensor([0]), mode="max", scale_grad_by_freq=True),
    lambda m, F: F.embedding_bag(m.tensor([[1, 2]]), m.ones(5, 2), m.tensor([0])),
    lambda m, F: F.embedding_bag(m.tensor([1, 2]), m.ones(5, 2), m.tensor([0]), padding_idx=5),
    lambda m, F: F.embedding_bag(m.tensor([1, 2]), m.ones(5, 2, 1), m.tensor([0])),
])
def test_embedding_bag_errors(call):
    test_errors(call)


def test_embedding_bag_nodes_and_max_norm():
    w = torch.randn(10, 3) * 3
    idx, offsets = torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2])
    wt, we = w.clone().requires_grad_(), conv(w).requires_grad_()
    yt = TF.embedding_bag(idx, wt, offsets, max_norm=1.0, mode="max")
    ye = EF.embedding_bag(conv(idx), we, conv(offsets), max_norm=1.0, mode="max")
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__ == "EmbeddingBagBackward0"
    assert_same(we.detach(), wt.detach(), rtol=1e-6, atol=1e-6)
    assert_same(ye.detach(), yt.detach(), rtol=1e-6, atol=1e-6)
    yt.sum().backward()
    ye.sum().backward()
    assert_same(we.grad, wt.grad)

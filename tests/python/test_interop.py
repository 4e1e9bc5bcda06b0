"""numpy (shared memory), DLPack with numpy and torch, item/tolist/len/iteration, storage."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same


@pytest.mark.parametrize("np_dtype", [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
                                      np.uint8, np.bool_])
def test_from_numpy_shares_memory(np_dtype):
    arr = (np.arange(12).reshape(3, 4) % 3).astype(np_dtype)
    e, t = ember.from_numpy(arr), torch.from_numpy(arr)
    assert_same(e, t)
    arr[0, 0] = 1
    assert e[0, 0].item() == t[0, 0].item() == arr[0, 0]
    back = e.numpy()
    assert np.shares_memory(back, arr)
    e[1, 1] = 0
    assert arr[1, 1] == 0


def test_from_numpy_non_contiguous_and_lifetime():
    arr = np.arange(24.0).reshape(4, 6)[::2, 1::2]
    e, t = ember.from_numpy(arr), torch.from_numpy(arr)
    assert_same(e, t)
    e2 = ember.from_numpy(np.arange(5.0))  # the array lives as long as the tensor
    assert e2.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="negative"):
        ember.from_numpy(np.arange(5.0)[::-1])
    with pytest.raises(TypeError):
        ember.from_numpy([1, 2])


def test_numpy_views_keep_tensor_alive():
    a = ember.arange(6).reshape(2, 3).t().numpy()
    np.testing.assert_array_equal(a, np.arange(6).reshape(2, 3).T)
    assert np.asarray(ember.ones(2, 2)).shape == (2, 2)
    with pytest.raises(TypeError, match="BFloat16"):
        ember.ones(2, dtype=ember.bfloat16).numpy()
    with pytest.raises(RuntimeError, match="requires grad"):
        ember.ones(2, requires_grad=True).numpy()


def test_dlpack_with_torch_both_ways():
    e = ember.arange(12, dtype=ember.float32).reshape(3, 4)[:, 1:]
    t = torch.from_dlpack(e)
    assert t.shape == (3, 3) and t.stride() == e.stride()
    t[0, 0] = 100
    assert e[0, 0].item() == 100
    src = torch.arange(6, dtype=torch.int32).reshape(2, 3).t()
    back = ember.from_dlpack(src)
    assert_same(back, src)
    src[0, 0] = -7
    assert back[0, 0].item() == -7
    assert ember.from_dlpack(np.arange(3.0)).tolist() == [0.0, 1.0, 2.0]
    bf = torch.from_dlpack(ember.ones(3, dtype=ember.bfloat16))
    assert bf.dtype == torch.bfloat16


def test_item_tolist_len_iter():
    for mk in (lambda m: m.tensor([[1, 2], [3, 4]]), lambda m: m.tensor([1.5, -2.0]), lambda m: m.tensor([True]),
               lambda m: m.tensor(7), lambda m: m.arange(6).reshape(3, 2).t()):
        e, t = mk(ember), mk(torch)
        assert e.tolist() == t.tolist()
        if t.numel() == 1:
            assert e.item() == t.item() and type(e.item()) is type(t.item())
        if t.dim() > 0:
            assert len(e) == len(t)
            assert [x.tolist() for x in e] == [x.tolist() for x in t]
    with pytest.raises(TypeError, match="0-d"):
        iter(ember.tensor(1.0))
    with pytest.raises(TypeError):
        len(ember.tensor(1.0))
    assert float(ember.tensor(2.5)) == 2.5 and int(ember.tensor(3)) == 3 and bool(ember.tensor(1))
    assert f"{ember.tensor(3.14159):.2f}" == "3.14"
    assert [0, 1, 2][ember.tensor(1)] == 1


def test_storage_and_data_ptr():
    x = ember.tensor([[1, 2, 3], [4, 5, 6]])
    y = x.T
    assert x.storage().data_ptr() == y.storage().data_ptr()
    assert x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
    assert x.data_ptr() == y.data_ptr()
    assert x[1].data_ptr() == x.data_ptr() + 3 * 8
    assert x.data_ptr() % 64 == 0
    assert x.untyped_storage().nbytes() == 48
    z = y.contiguous()
    assert z.storage().data_ptr() != y.storage().data_ptr()
    assert x.contiguous().data_ptr() == x.data_ptr()


def test_size_type():
    s = ember.zeros(2, 3).shape
    assert isinstance(s, tuple) and isinstance(s, ember.Size)
    assert repr(s) == "torch.Size([2, 3])" and str(s) == repr(torch.zeros(2, 3).shape)
    assert s == (2, 3) and s[1] == 3 and s.numel() == 6
    assert isinstance(s[1:], ember.Size)
    assert ember.zeros(2, 3).size() == s and ember.zeros(2, 3).size(-1) == 3
    assert ember.zeros(s).shape == s


def test_as_tensor_shares_numpy_and_tensors():
    arr = np.arange(4.0)
    e = ember.as_tensor(arr)
    arr[0] = 9
    assert e[0].item() == 9
    x = ember.ones(3)
    assert ember.as_tensor(x) is x
    assert ember.as_tensor(arr, dtype=ember.float32).dtype is ember.float32
    assert ember.as_tensor([1, 2]).tolist() == [1, 2]


def test_type_and_to_variants():
    x = ember.arange(3)
    t = torch.arange(3)
    assert x.type() == t.type() == "torch.LongTensor"
    assert x.float().type() == t.float().type()
    assert x.type(ember.float64).dtype is ember.float64
    assert x.type("torch.DoubleTensor").dtype is ember.float64
    assert x.to(ember.zeros(1, dtype=ember.float16)).dtype is ember.float16
    assert x.to("cpu", ember.float32).dtype is ember.float32
    assert x.to(device="cpu") is x
    y = x.to("cpu", copy=True)
    assert y is not x and not y._is_view_of_same_storage(x)
    assert x.cpu() is x

"""Ops that need element values on the host (item, tolist, printing, nonzero, mask indexing, bounds checks, random
numbers and ranges made on the host, pickling) on CUDA tensors: the same results as on the CPU, on the device."""
import copy
import operator
import pickle

import numpy as np
import pytest

import ember
import torch

pytestmark = pytest.mark.cuda

DEV = "cuda"
rng = np.random.default_rng(14)


def cuda(x):
    return x.to(DEV)


def assert_on_cuda_equal(got, expected):
    assert got.device.type == ember.device(DEV).type
    assert got.dtype == expected.dtype and tuple(got.shape) == tuple(expected.shape)
    assert got.stride() == expected.stride()
    assert got.cpu().tolist() == expected.tolist()


def sample(shape, dtype=ember.float32):
    return ember.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(dtype)


LAYOUTS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.t(),
    "offset": lambda x: x[1:],
    "expanded": lambda x: x[:1].expand(x.shape),
}


@pytest.mark.parametrize("dtype", [ember.bool, ember.uint8, ember.int32, ember.int64, ember.float16, ember.bfloat16,
                                   ember.float32, ember.float64])
def test_item_and_python_numbers(dtype):
    x = (sample((1,)).abs() * 3).to(dtype)
    d = cuda(x)
    assert d.item() == x.item() and type(d.item()) is type(x.item())
    assert bool(d) == bool(x) and float(d) == float(x) and int(d) == int(x)
    assert format(d[0], "") == format(x[0], "")
    if not x.is_floating_point():
        assert operator.index(d.reshape(())) == operator.index(x.reshape(()))


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_tolist(layout):
    x = LAYOUTS[layout](sample((4, 4)))
    assert cuda(x).tolist() == x.tolist()
    assert cuda(ember.tensor(2.5)).tolist() == 2.5
    assert cuda(ember.zeros(0, 3)).tolist() == []


def test_repr_has_the_device_suffix():
    assert repr(ember.tensor([1.0, 2.0], device=DEV)) == "tensor([1., 2.], device='cuda:0')"
    assert repr(ember.tensor([1, 2], device=DEV)) == "tensor([1, 2], device='cuda:0')"
    assert repr(ember.zeros(0, device=DEV)) == "tensor([], device='cuda:0')"
    assert repr(ember.ones(2, dtype=ember.float16, device=DEV)) == \
        "tensor([1., 1.], device='cuda:0', dtype=torch.float16)"
    assert repr(ember.ones(2, device=DEV, requires_grad=True)) == \
        "tensor([1., 1.], device='cuda:0', requires_grad=True)"
    x = sample((40, 40))
    if torch.cuda.is_available():  # torch wraps the suffix onto its own line when the last line is full
        assert repr(cuda(x)) == repr(torch.from_numpy(x.numpy()).cuda())


def test_numpy_raises_torchs_type_error():
    d = ember.ones(2, device=DEV)
    message = r"can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu\(\) to copy the tensor to host"
    with pytest.raises(TypeError, match=message):
        d.numpy()
    with pytest.raises(TypeError, match=message):
        np.asarray(d)
    with pytest.raises(TypeError, match=message):
        ember.ones(2, device=DEV, requires_grad=True).numpy()  # the device is checked first, as torch
    assert (d.cpu().numpy() == 1).all()


@pytest.mark.parametrize("shape", [(0,), (7,), (3, 5), (2, 3, 4), ()])
def test_nonzero(shape):
    x = (sample(shape) > 0.3) if shape else ember.tensor(1.0)
    assert_on_cuda_equal(ember.nonzero(cuda(x)), ember.nonzero(x))
    assert_on_cuda_equal(cuda(x).nonzero(), x.nonzero())
    ints = (x.to(ember.float32) * 3).to(ember.int32)
    assert_on_cuda_equal(cuda(ints).nonzero(), ints.nonzero())


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_mask_indexing(layout):
    x = LAYOUTS[layout](sample((5, 5)))
    mask = x > 0
    assert_on_cuda_equal(cuda(x)[cuda(mask)], x[mask])
    assert_on_cuda_equal(cuda(x)[mask], x[mask])  # CPU indices into a device tensor, as torch allows
    assert_on_cuda_equal(cuda(x)[cuda(mask[:, 0])], x[mask[:, 0]])
    assert_on_cuda_equal(cuda(x)[:, cuda(mask[1])], x[:, mask[1]])
    assert_on_cuda_equal(cuda(x)[cuda(ember.tensor(True))], x[ember.tensor(True)])
    assert_on_cuda_equal(cuda(x)[cuda(ember.tensor(False))], x[ember.tensor(False)])


@pytest.mark.parametrize("value", [7.0, "tensor", "cpu0dim"])
def test_mask_assignment(value):
    x = sample((4, 6))
    mask = x > 0
    v = {7.0: 7.0, "tensor": ember.tensor(-2.0), "cpu0dim": ember.tensor(5.0)}[value]
    dv = cuda(v) if value == "tensor" else v
    expected, got = x.clone(), cuda(x)
    expected[mask] = v
    got[cuda(mask)] = dv
    assert_on_cuda_equal(got, expected)
    got = cuda(x)
    got[cuda(mask)] = cuda(ember.arange(float(int(mask.sum()))))
    expected = x.clone()
    expected[mask] = ember.arange(float(int(mask.sum())))
    assert_on_cuda_equal(got, expected)
    got, expected = cuda(x), x.clone()
    got.masked_fill_(cuda(mask), 3.0)
    expected.masked_fill_(mask, 3.0)
    assert_on_cuda_equal(got, expected)


def test_integer_indexing_checks_bounds():
    x = sample((4, 3))
    idx = ember.tensor([0, -1, 2])
    assert_on_cuda_equal(cuda(x)[cuda(idx)], x[idx])
    assert_on_cuda_equal(cuda(x)[cuda(idx), cuda(ember.tensor([2, 1, 0]))], x[idx, ember.tensor([2, 1, 0])])
    got, expected = cuda(x), x.clone()
    got[cuda(idx)] = 1.5
    expected[idx] = 1.5
    assert_on_cuda_equal(got, expected)
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 4"):
        cuda(x)[cuda(ember.tensor([4]))]
    with pytest.raises(IndexError, match="indices should be either on cpu or on the same device"):
        x[cuda(idx)]
    assert_on_cuda_equal(ember.index_select(cuda(x), 0, cuda(ember.tensor([3, 0]))),
                         ember.index_select(x, 0, ember.tensor([3, 0])))
    with pytest.raises(IndexError, match="index out of range in self"):
        ember.index_select(cuda(x), 0, cuda(ember.tensor([4])))
    g = ember.tensor([[0, 2], [1, 1], [2, 0], [0, 0]])
    assert_on_cuda_equal(ember.gather(cuda(x), 1, cuda(g)), ember.gather(x, 1, g))
    with pytest.raises(RuntimeError, match="out of bounds"):
        ember.gather(cuda(x), 1, cuda(g + 3))


def test_index_with_a_0dim_tensor_and_narrow():
    x = sample((5, 2))
    i = ember.tensor(3)
    assert_on_cuda_equal(cuda(x)[cuda(i)], x[i])
    assert_on_cuda_equal(cuda(x).narrow(0, cuda(ember.tensor(1)), 2), x.narrow(0, 1, 2))


def same_seed(fn):
    ember.manual_seed(1234)
    on_cpu = fn("cpu")
    ember.manual_seed(1234)
    on_cuda = fn(DEV)
    return on_cuda, on_cpu


def same_seed_twice(fn):
    """fn's result on CUDA for one seed, twice: a seed fixes the device's draws (Philox, not the CPU's stream)."""
    ember.manual_seed(1234)
    first = fn(DEV)
    ember.manual_seed(1234)
    return fn(DEV), first


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16, ember.float32, ember.float64])
@pytest.mark.parametrize("shape", [(0,), (5,), (17,), (3, 33)])
def test_random_creation_is_reproducible_for_a_seed(dtype, shape):
    for fn in (lambda d: ember.rand(*shape, dtype=dtype, device=d),
               lambda d: ember.randn(*shape, dtype=dtype, device=d),
               lambda d: ember.normal(2.0, 3.0, shape, dtype=dtype, device=d),
               lambda d: ember.randint(-5, 9, shape, device=d),
               lambda d: ember.randint(0, 2**40, shape, dtype=ember.int64, device=d)):
        got, first = same_seed_twice(fn)
        assert got.is_cuda and got.cpu().tolist() == first.cpu().tolist()
        assert (got.dtype, got.shape) == (fn("cpu").dtype, fn("cpu").shape)


@pytest.mark.parametrize("layout", list(LAYOUTS)[:3])
def test_random_in_place_is_reproducible_for_a_seed(layout):
    for fill, lo, hi in ((lambda t: t.uniform_(-2, 3), -2, 3), (lambda t: t.normal_(1, 2), -30, 30),
                         (lambda t: t.random_(0, 100), 0, 100)):
        got, first = same_seed_twice(lambda d: fill(LAYOUTS[layout](ember.zeros(6, 6, device=d))))
        assert got.is_cuda and got.cpu().tolist() == first.cpu().tolist()
        h = got.cpu()
        assert h.min().item() >= lo and h.max().item() < hi and h.unique().numel() > 10
    with pytest.raises(RuntimeError, match="uniform_ expects"):
        ember.zeros(2, device=DEV).uniform_(3, 2)


def test_randperm_and_generators():
    for n in (0, 1, 10, 1000):
        got, expected = same_seed(lambda d: ember.randperm(n, device=d))
        assert_on_cuda_equal(got, expected)
    g = ember.Generator().manual_seed(3)
    a = ember.rand(4, generator=g)
    g.set_state(cuda(ember.Generator().manual_seed(3).get_state()))
    assert ember.rand(4, generator=g, device=DEV).cpu().tolist() == a.tolist()


def test_ranges_on_the_device():
    cases = [lambda d: ember.arange(10, device=d), lambda d: ember.arange(0.5, 7.25, 0.75, device=d),
             lambda d: ember.arange(3, 40000, 3, dtype=ember.float16, device=d),
             lambda d: ember.linspace(-1, 1, 7, device=d), lambda d: ember.linspace(0, 10, 5, dtype=ember.int32, device=d),
             lambda d: ember.linspace(2, 2, 1, device=d), lambda d: ember.linspace(0, 1, 0, device=d),
             lambda d: ember.logspace(0, 3, 4, device=d), lambda d: ember.eye(3, 5, device=d),
             lambda d: ember.eye(4, dtype=ember.bool, device=d), lambda d: ember.tensor([[1, 2], [3, 4]], device=d)]
    for make in cases:
        assert_on_cuda_equal(make(DEV), make("cpu"))
    assert ember.arange(5, device=DEV, requires_grad=False).device.type == ember.device(DEV).type
    r = ember.arange(3.0, device=DEV, requires_grad=True)
    assert r.requires_grad and r.is_leaf and r.device.type == ember.device(DEV).type


@pytest.mark.parametrize("dtype", [ember.int32, ember.int64, ember.uint8])
def test_integer_division_by_zero_raises(dtype):
    a = cuda(ember.tensor([4, 6, 8]).to(dtype))
    b = cuda(ember.tensor([2, 0, 1]).to(dtype))
    for op in (lambda: a // b, lambda: ember.div(a, b, rounding_mode="trunc"), lambda: a % b, lambda: a // 0):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            op()
    assert_on_cuda_equal(a // cuda(ember.tensor([2, 3, 4]).to(dtype)), a.cpu() // ember.tensor([2, 3, 4]).to(dtype))


def test_comparisons_of_values():
    a, b = sample((3, 4)), sample((3, 4))
    assert ember.equal(cuda(a), cuda(a)) and not ember.equal(cuda(a), cuda(b))
    assert ember.allclose(cuda(a), cuda(a + 1e-9)) and not ember.allclose(cuda(a), cuda(b))


def test_pickle_and_deepcopy_keep_the_device():
    x = sample((4, 5))
    for view in (x, x.t(), x[1:, 2:]):
        got = pickle.loads(pickle.dumps(cuda(view)))
        assert got.device.type == ember.device(DEV).type and got.stride() == cuda(view).stride()
        assert got.tolist() == view.tolist()
    d = cuda(x)
    a, b = copy.deepcopy([d, d[1:]])
    assert a.device.type == ember.device(DEV).type and a.tolist() == x.tolist() and b.tolist() == x[1:].tolist()
    a[1, 0] = 100.0
    assert b[0, 0].item() == 100.0 and d[1, 0].item() == x[1, 0].item()  # one new storage, shared by both copies
    e = ember.ones(2, device=DEV, requires_grad=True)
    assert pickle.loads(pickle.dumps(e)).requires_grad


def test_dlpack_device_and_round_trip():
    d = cuda(sample((3, 4)))
    assert d.__dlpack_device__() == (2, 0)
    back = ember.from_dlpack(d.__dlpack__())
    assert back.device.type == ember.device(DEV).type and back.tolist() == d.tolist() and back.data_ptr() == d.data_ptr()
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        t = torch.from_dlpack(d)
        assert t.device.type == "cuda" and t.cpu().tolist() == d.tolist()
        e = ember.from_dlpack(torch.arange(6.0, device="cuda"))
        assert e.device.type == "cuda" and e.tolist() == list(map(float, range(6)))



"""The CUDA device model: placement, copies between host and device, pinned memory, the caching allocator's
statistics and out-of-memory errors. Every test needs a GPU (skipped without one)."""
import numpy as np
import pytest

import ember

pytestmark = pytest.mark.cuda


def host(values, dtype=ember.float32):
    return ember.tensor(values, dtype=dtype)


def test_device_queries():
    assert ember.cuda.is_available()
    assert ember.cuda.device_count() >= 1
    assert ember.cuda.current_device() == 0
    props = ember.cuda.get_device_properties(0)
    assert props.total_memory > 1 << 30 and props.multi_processor_count > 0
    assert ember.cuda.get_device_capability() == (props.major, props.minor)
    free, total = ember.cuda.mem_get_info()
    assert 0 < free <= total == props.total_memory


@pytest.mark.parametrize("spec", ["cuda", "cuda:0", ember.device("cuda", 0), 0])
def test_placement_names_the_index(spec):
    x = ember.zeros(3, device=spec)
    assert x.is_cuda and x.device == ember.device("cuda", 0) and str(x.device) == "cuda:0"
    assert x.get_device() == 0


@pytest.mark.parametrize("dtype", [ember.bool, ember.uint8, ember.int16, ember.int32, ember.int64, ember.float16,
                                   ember.bfloat16, ember.float32, ember.float64])
def test_round_trip_keeps_values(dtype):
    x = (ember.arange(24) - 7).reshape(2, 3, 4).to(dtype)
    y = x.cuda()
    assert y.dtype == dtype and y.shape == x.shape and y.is_cuda
    assert ember.equal(y.cpu(), x)


def test_copies_of_views_and_broadcasts():
    x = ember.arange(60, dtype=ember.float32).reshape(3, 4, 5)
    for view in (x.transpose(0, 2), x[:, 1:3, ::2], x[1], x[0, 0, 0], x.expand(2, 3, 4, 5)):
        assert ember.equal(view.cuda().cpu(), view.contiguous())
    # into a non-contiguous CUDA destination, from CPU and with a broadcast and a dtype change
    d = ember.zeros(5, 4, device="cuda").t()
    d.copy_(ember.arange(5, dtype=ember.float64))
    assert ember.equal(d.cpu(), ember.arange(5, dtype=ember.float32).expand(4, 5))


def test_empty_and_zero_dim():
    assert ember.zeros(0, 3, device="cuda").cpu().shape == (0, 3)
    s = ember.tensor(2.5).cuda()
    assert s.dim() == 0 and s.item() == 2.5


def test_to_same_device_is_no_copy():
    y = ember.ones(3, device="cuda")
    assert y.to("cuda") is y and y.cuda() is y and y.to("cuda:0") is y
    assert y.to("cuda", copy=True) is not y


def test_gradient_flows_back_across_devices():
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.cuda()
    y.sum().backward()
    assert x.grad.device == ember.device("cpu") and x.grad.tolist() == [1.0, 1.0, 1.0]


def test_mixed_devices_raise():
    a = ember.ones(3, device="cuda")
    with pytest.raises(RuntimeError, match="same device"):
        a + ember.ones(3)
    assert (a + ember.tensor(2.0)).cpu().tolist() == [3.0, 3.0, 3.0]  # a CPU 0-dim tensor joins any device


def test_pinned_memory_and_non_blocking_copies():
    x = ember.arange(1 << 20, dtype=ember.float32)
    assert not x.is_pinned()
    p = x.pin_memory()
    assert p.is_pinned() and p.pin_memory() is p and ember.equal(p, x)
    assert ember.empty(4, pin_memory=True).is_pinned()
    d = p.to("cuda", non_blocking=True)
    back = ember.empty(1 << 20, pin_memory=True)
    back.copy_(d, non_blocking=True)
    ember.cuda.synchronize()
    assert ember.equal(back, x)
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        d.pin_memory()


def test_allocator_statistics():
    ember.cuda.empty_cache()
    base = ember.cuda.memory_allocated()
    x = ember.empty(1000, device="cuda")  # 4000 bytes, rounded up to 512-byte blocks
    assert ember.cuda.memory_allocated() == base + 4096
    assert ember.cuda.max_memory_allocated() >= base + 4096
    big = ember.empty(3 << 20, dtype=ember.uint8, device="cuda")  # 3 MiB: 2 MiB rounding
    assert ember.cuda.memory_allocated() == base + 4096 + (4 << 20)
    reserved = ember.cuda.memory_reserved()
    del big
    assert ember.cuda.memory_allocated() == base + 4096
    assert ember.cuda.memory_reserved() == reserved  # cached for reuse
    again = ember.empty(3 << 20, dtype=ember.uint8, device="cuda")
    assert ember.cuda.memory_reserved() == reserved  # the cached block came back
    del again, x
    ember.cuda.empty_cache()
    assert ember.cuda.memory_reserved() == ember.cuda.memory_allocated() == base
    ember.cuda.reset_peak_memory_stats()
    assert ember.cuda.max_memory_allocated() == base
    stats = ember.cuda.memory_stats()
    assert stats["allocation.all.allocated"] >= stats["allocation.all.freed"]
    assert "Allocated memory" in ember.cuda.memory_summary()


def test_out_of_memory_raises_and_work_continues():
    total = ember.cuda.get_device_properties(0).total_memory
    before = ember.cuda.memory_allocated()
    with pytest.raises(ember.cuda.OutOfMemoryError, match="Tried to allocate") as info:
        ember.empty(2 * total, dtype=ember.uint8, device="cuda")
    assert isinstance(info.value, RuntimeError)
    assert ember.cuda.memory_allocated() == before  # nothing leaked
    assert ember.cuda.memory_stats()["num_ooms"] >= 1
    assert ember.ones(4, device="cuda").sum().item() == 4.0


def test_memory_fraction_caps_reservations():
    total = ember.cuda.get_device_properties(0).total_memory
    ember.cuda.empty_cache()
    ember.cuda.set_per_process_memory_fraction(0.25)
    try:
        with pytest.raises(ember.OutOfMemoryError):
            ember.empty(int(total * 0.3), dtype=ember.uint8, device="cuda")
        ember.empty(int(total * 0.1), dtype=ember.uint8, device="cuda")
    finally:
        ember.cuda.set_per_process_memory_fraction(1.0)


def test_device_context_and_synchronize():
    with ember.cuda.device(0):
        assert ember.cuda.current_device() == 0
    ember.cuda.synchronize()
    ember.cuda.synchronize(0)


def test_printing_and_numpy():
    x = ember.tensor([1.0, 2.0]).cuda()
    assert repr(x) == "tensor([1., 2.], device='cuda:0')"
    with pytest.raises(TypeError, match="cuda:0 device type tensor to numpy"):
        x.numpy()
    assert np.array_equal(x.cpu().numpy(), np.array([1.0, 2.0], dtype=np.float32))

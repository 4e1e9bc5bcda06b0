"""contiguous, clone, to and copy_ against torch: values, dtypes, layouts, aliasing; CPU memory stats."""
import pytest
import torch

import ember
from conftest import DTYPES, assert_same, dtype_id

LAYOUTS = {
    "contiguous": lambda m, d: m.arange(60).reshape(3, 4, 5).to(d),
    "transposed": lambda m, d: m.arange(60).reshape(3, 4, 5).to(d).transpose(0, 2),
    "permuted_sliced": lambda m, d: m.arange(60).reshape(3, 4, 5).to(d).permute(2, 0, 1)[:, 1:, ::2],
    "expanded": lambda m, d: m.arange(5).to(d).reshape(1, 5).expand(4, 5),
    "zero_dim": lambda m, d: m.tensor(3).to(d),
    "empty": lambda m, d: m.zeros(0, 3).to(d),
    "big_transposed": lambda m, d: m.arange(200 * 70).reshape(200, 70).to(d).t(),
}


@pytest.mark.parametrize("pair", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_clone_contiguous_keep_torch_layout(layout, pair):
    e, t = LAYOUTS[layout](ember, pair[0]), LAYOUTS[layout](torch, pair[1])
    assert_same(e.clone(), t.clone())
    assert_same(e.contiguous(), t.contiguous())
    assert e.contiguous()._is_view_of_same_storage(e) == e.is_contiguous()
    assert not e.clone()._is_view_of_same_storage(e)


@pytest.mark.parametrize("dst", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "permuted_sliced", "expanded", "big_transposed"])
def test_to_dtype_keeps_layout(layout, dst):
    e, t = LAYOUTS[layout](ember, ember.float32), LAYOUTS[layout](torch, torch.float32)
    assert_same(e.to(dst[0]), t.to(dst[1]))
    assert_same(e.to(dtype=dst[0], copy=True), t.to(dtype=dst[1], copy=True))
    assert (e.to(ember.float32) is e) or e.to(ember.float32)._is_view_of_same_storage(e)


@pytest.mark.parametrize("src", DTYPES, ids=dtype_id)
def test_copy_broadcasts_and_converts(src):
    for dst_shape, src_shape in [((2, 3), (3,)), ((4, 2, 3), (2, 1)), ((3,), ()), ((5, 4), (5, 4))]:
        te = torch.zeros(dst_shape, dtype=torch.float64)
        ee = ember.zeros(dst_shape, dtype=ember.float64)
        n = 1
        for s in src_shape:
            n *= s
        values = [i % 5 for i in range(n)]
        st = torch.tensor(values).reshape(src_shape).to(src[1])
        se = ember.tensor(values).reshape(src_shape).to(src[0])
        assert_same(ee.copy_(se), te.copy_(st))
        assert_same(ee.t().copy_(ember.ones(ee.t().shape)) if ee.dim() == 2 else ee,
                    te.t().copy_(torch.ones(te.t().shape)) if te.dim() == 2 else te)


def test_copy_into_views_and_self():
    base_e, base_t = ember.zeros(4, 6), torch.zeros(4, 6)
    for m, base in ((ember, base_e), (torch, base_t)):
        base[:, ::2].copy_(m.arange(12.0).reshape(4, 3))
        base[1:3].t().copy_(m.full((6, 2), 2.0))
    assert_same(base_e, base_t)
    x = ember.arange(6.0)
    assert x.copy_(x) is x
    y = ember.arange(6.0)
    y.copy_(y.view(2, 3).view(6))  # the same memory: a no-op
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


@pytest.mark.release_build
def test_cpu_memory_statistics_and_cache():
    ember.cpu.empty_cache()
    start = ember.cpu.memory_allocated()
    ember.cpu.reset_peak_memory_stats()
    x = ember.empty(1 << 22)  # 16 MiB: a cached huge-page block
    assert ember.cpu.memory_allocated() - start == 16 << 20
    assert ember.cpu.memory_reserved() >= ember.cpu.memory_allocated()
    ptr = x.data_ptr()
    del x
    assert ember.cpu.memory_allocated() == start
    assert ember.cpu.max_memory_allocated() >= start + (16 << 20)
    y = ember.empty(1 << 22)
    assert y.data_ptr() == ptr  # reused, no fresh pages to fault in
    del y
    reserved = ember.cpu.memory_reserved()
    ember.empty_cache()
    assert ember.cpu.memory_reserved() <= reserved - (16 << 20)


@pytest.mark.release_build
def test_cpu_cache_keeps_medium_blocks():
    # 784 KiB (the main job's 32x7x7 activations at batch 128): from glibc's heap, trimmed and faulted in again
    # each step; now a cached mapping
    ember.cpu.empty_cache()
    x = ember.empty(128 * 32 * 7 * 7)
    ptr = x.data_ptr()
    del x
    assert ember.cpu.memory_reserved() >= 784 << 10
    y = ember.empty(128 * 32 * 7 * 7)
    assert y.data_ptr() == ptr

"""Shared helpers: build the same tensor in ember and torch, and compare them."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import reference_isa  # noqa: E402,F401 - before torch
import torch  # noqa: E402

import ember

# dtype pairs (ember, torch) for every dtype Ember supports.
DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
               "float8_e4m3fn", "float8_e5m2"]
DTYPES = [(getattr(ember, n), getattr(torch, n)) for n in DTYPE_NAMES]
FLOAT_NAMES = ["float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2"]


def pytest_configure(config):
    config.addinivalue_line("markers", "release_build: pins what only a release build does (block caching, "
                            "vectorised rounding, crash signals, timing); skipped in the sanitizer run")
    config.addinivalue_line("markers", "cuda: needs a CUDA GPU; skipped where ember.cuda.is_available() is False")


def pytest_collection_modifyitems(config, items):
    # scripts/sanitize.sh sets EMBER_SANITIZED: its build caches no blocks (ASan sees each tensor's bounds)
    # and compiles at -O1, where reassociated sums round differently in the last bits; ASan turns a child's
    # SIGSEGV into exit 1; its overhead hides the threads' speedup.
    if os.environ.get("EMBER_SANITIZED"):
        skip = pytest.mark.skip(reason="sanitizer build: no block cache, -O1 rounding")
        for item in items:
            if "release_build" in item.keywords:
                item.add_marker(skip)
    if not ember.cuda.is_available():
        no_gpu = pytest.mark.skip(reason="needs a CUDA GPU")
        for item in items:
            if item.get_closest_marker("cuda"):
                item.add_marker(no_gpu)


def dtype_id(pair):
    return str(pair[1]).replace("torch.", "")


def ember_dtype(tdtype):
    return getattr(ember, str(tdtype).replace("torch.", ""))


def pair_from_numpy(arr, name="float32"):
    """The same values as an ember tensor and a torch tensor of dtype `name`."""
    arr = np.ascontiguousarray(arr)
    t = torch.from_numpy(arr.copy()).to(getattr(torch, name))
    e = ember.from_numpy(arr.copy()).to(getattr(ember, name))
    return e, t


def to_torch(e):
    """A torch copy of an ember tensor's values (through float32 for types numpy lacks)."""
    name = str(e.dtype).replace("torch.", "")
    e = e.cpu()
    if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        bits = e.view(ember.uint8 if e.element_size() == 1 else ember.int16).contiguous().numpy()
        return torch.from_numpy(bits.copy()).view(getattr(torch, name))
    return torch.from_numpy(e.contiguous().numpy().copy())


def assert_same(e, t, *, check_strides=True, check_values=True, rtol=0.0, atol=0.0):
    """ember tensor `e` equals torch tensor `t`: dtype, shape, strides, offset and values."""
    assert isinstance(e, ember.Tensor), type(e)
    assert str(e.dtype) == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    if check_strides:
        assert e.stride() == t.stride(), (e.stride(), t.stride())
        assert e.storage_offset() == t.storage_offset()
    if check_values:
        got = to_torch(e)
        if t.dtype.is_floating_point:
            if torch.equal(got, t):
                return  # bitwise equal (no NaN): assert_close costs ~0.4 ms a call
            torch.testing.assert_close(got.double(), t.double(), rtol=rtol, atol=atol, equal_nan=True)
        else:
            assert torch.equal(got, t)


def outcome(fn):
    """(result, None) or (None, exception): for comparing what ember and torch do with the same call."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the caller compares exception types
        return None, e


@pytest.fixture(autouse=True)
def _restore_print_options():
    yield
    ember.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")

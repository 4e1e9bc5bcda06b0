"""Hardening of the Python surface: torch's exceptions, torch's argument forms, no crash (issue 8).

Each case is an expression over `lib` (ember or torch), `np` and a few locals; both libraries must raise the
same exception type or return equal tensors. Inputs that used to crash run in a child process.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome


def deep(n):
    d = 1
    for _ in range(n):
        d = [d]
    return d


def self_containing():
    a = []
    a.append(a)
    return a


def run_both(expr, **env):
    """(ember outcome, torch outcome) of `expr` evaluated with lib bound to each library."""
    results = []
    for lib in (ember, torch):
        scope = {"lib": lib, "np": np, "deep": deep, "self_containing": self_containing, **env}
        results.append(outcome(lambda: eval(expr, scope)))
    return results


def check_same(expr, **env):
    (e, e_err), (t, t_err) = run_both(expr, **env)
    if t_err is not None or e_err is not None:
        assert type(e_err) is type(t_err), (expr, e_err, t_err)
        return
    if isinstance(t, torch.Tensor):
        assert_same(e, t, check_strides=False)
    else:
        assert e == t, (expr, e, t)


def check_in_child(expr, timeout=60):
    """`expr` raises torch's exception type (or agrees) in a child process, which must not crash or hang."""
    code = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {repr(sys.path[0])})
        from test_hardening_python import check_same
        check_same({expr!r})
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                       cwd=__import__("os").path.dirname(__file__))
    assert r.returncode == 0 and "ok" in r.stdout, (expr, r.returncode, r.stderr[-2000:])


# ---- 1. tensor(data) from nested sequences

CRASHING_DATA = [
    "lib.tensor([lib.zeros(1), lib.zeros(10**6)])",
    "lib.tensor([lib.zeros(1), lib.zeros(10**6)], dtype=lib.int64)",
    "lib.tensor(deep(100000))",
    "lib.tensor(self_containing())",
    "lib.as_tensor(self_containing())",
]


@pytest.mark.parametrize("expr", CRASHING_DATA)
def test_tensor_data_no_crash(expr):
    check_in_child(expr)


TENSOR_DATA = [
    "lib.tensor([[1, 2], [3]])", "lib.tensor([[1], []])", "lib.tensor([[]])", "lib.tensor([[], []])",
    "lib.tensor(deep(64))", "lib.tensor(deep(128)).dim()", "lib.tensor(deep(129))",
    "lib.tensor([lib.zeros(2), lib.zeros(2)])", "lib.tensor([lib.zeros(1, 1), lib.zeros(1)])",
    "lib.tensor([lib.tensor([1, 2]), [3, 4]])", "lib.tensor([[1, 2], lib.tensor([3, 4])])",
    "lib.tensor([1, lib.tensor(2.)])", "lib.tensor([lib.tensor(2.), 1])",
    "lib.tensor([lib.tensor(1, dtype=lib.int8), 1])",
    "lib.tensor([1, np.array(2.)])", "lib.tensor([np.array(3.0), 1.])",
    "lib.tensor([np.array([1, 2]), np.array([3, 4])])", "lib.tensor([np.zeros(2), np.zeros(3)])",
    "lib.tensor([np.array([1., 2.]), [3, 4]])", "lib.tensor((1, 2))", "lib.tensor([(1, 2), [3, 4]])",
    "lib.tensor(range(3))", "lib.tensor([1, [2]])", "lib.tensor([[1, 2], 3])", "lib.tensor([1, None])",
    "lib.tensor(None)", "lib.tensor([1, {}])", "lib.tensor('a')", "lib.tensor(['a'])", "lib.tensor([''])",
    "lib.tensor([[1, 2], 'ab'])", "lib.tensor(b'ab')", "lib.tensor([None], dtype=lib.float32)",
    "lib.tensor([True, 2.5])",
    # values out of range for the dtype
    "lib.tensor([-1.7], dtype=lib.uint8)", "lib.tensor([300], dtype=lib.int8)", "lib.tensor(2**64)",
    "lib.tensor(2**63)", "lib.tensor(-2**63)", "lib.tensor([1, 2**63])", "lib.tensor([1.5, 2**64])",
    "lib.tensor(2**64, dtype=lib.int8)", "lib.tensor([2**64], dtype=lib.float32)",
    "lib.tensor([2**64], dtype=lib.bool)", "lib.tensor(-1, dtype=lib.uint8)", "lib.tensor([-255], dtype=lib.uint8)",
    "lib.tensor([-256], dtype=lib.uint8)", "lib.tensor([255.9], dtype=lib.uint8)", "lib.tensor([256.], dtype=lib.uint8)",
    "lib.tensor([-1.7], dtype=lib.int8)", "lib.tensor([-129.5], dtype=lib.int8)", "lib.tensor([1e10], dtype=lib.int32)",
    "lib.tensor(float('nan'), dtype=lib.int32)", "lib.tensor([float('inf')], dtype=lib.int64)",
"lib.tensor([1e300], dtype=lib.float32)", "lib.tensor(1e6, dtype=lib.float16)",
    "lib.tensor([2.5], dtype=lib.bool)", "lib.tensor([1, 2.5], dtype=lib.int64)",
    "lib.tensor([lib.tensor(2**40)], dtype=lib.int32)", "lib.tensor([lib.tensor(-1.5)], dtype=lib.uint8)",
    "lib.tensor([lib.tensor(-1)], dtype=lib.uint8)",
    # numpy scalars keep their dtype, alone and in lists (promoted as torch.promote_types)
    "lib.tensor(np.float64(1.5))", "lib.tensor(np.float32(1.5))", "lib.tensor(np.float16(1.5))",
    "lib.tensor(np.int16(7))", "lib.tensor(np.int8(7))", "lib.tensor(np.int32(7))", "lib.tensor(np.uint8(7))",
    "lib.tensor(np.bool_(True))", "lib.tensor([np.float64(1.5)])", "lib.tensor([np.int16(7)])",
    "lib.tensor([np.float32(1.5), 1])", "lib.tensor([np.int16(1), np.int32(2)])", "lib.tensor([np.bool_(1)])",
    "lib.tensor([np.uint8(1), np.int8(1)])", "lib.tensor([1.5, np.float64(1)])", "lib.tensor([np.float16(1), 1.])",
    "lib.tensor([np.float16(1), 1])", "lib.tensor([np.int64(300)], dtype=lib.int8)",
    "lib.tensor([np.float32(1.5)], dtype=lib.int64)", "lib.tensor(np.longdouble(1))",
    "lib.tensor(np.array(3.0))", "lib.tensor(np.array(2))", "lib.tensor(np.array([300]), dtype=lib.int8)",
    "lib.as_tensor(np.float64(1.5))", "lib.as_tensor([np.int16(7)])", "lib.as_tensor(np.array(2))",
    "lib.as_tensor([[1, 2], [3]])", "lib.as_tensor([-1.7], dtype=lib.uint8)",
    "lib.tensor(np.zeros(3)[::-1])",
]


def test_tensor_data_deep_inside_no_crash():
    # torch itself overflows the stack here; ember stops at its 128-dim limit
    code = "import ember, sys; sys.setrecursionlimit(10**6)\nd = 1\nfor _ in range(100000): d = [d]\n" \
           "try: ember.tensor([[1], [d]])\nexcept ValueError as e: print('ok', e)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "ok too many dimensions 'list'" in r.stdout, (r.returncode, r.stderr[-2000:])


@pytest.mark.parametrize("expr", TENSOR_DATA)
def test_tensor_data(expr):
    check_same(expr)


# ---- 5. ember.cuda on a machine without CUDA answers as torch's CPU build

CUDA_CALLS = ["memory_allocated()", "max_memory_allocated()", "memory_reserved()", "max_memory_reserved()",
              "memory_allocated(0)", "empty_cache()", "synchronize()", "is_available()", "device_count()",
              "current_device()", "get_device_name()", "memory_stats()", "manual_seed(0)", "manual_seed_all(0)",
              "is_initialized()", "init()", "get_device_capability()", "mem_get_info()", "get_rng_state()",
              "get_device_properties(0)", "current_stream()", "get_arch_list()", "is_bf16_supported()"]


@pytest.mark.skipif(torch.cuda.is_available(), reason="compares with torch's CPU build")
@pytest.mark.parametrize("call", CUDA_CALLS)
def test_cuda_without_cuda(call):
    check_same("lib.cuda." + call)

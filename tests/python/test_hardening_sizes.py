"""Huge, negative and overflowing sizes, strides and offsets; allocation failures; arange's integer
sizing; dropping a deep autograd graph. Each bad input runs in a child process (a crash must show as
a failed test, not take the suite down) and must raise the exception type torch raises for it."""
import subprocess
import sys
import textwrap

import pytest
import torch

import ember

# Code run with L bound to ember (in a child process) and to torch (here); each must raise.
BAD_INPUTS = [
    "L.zeros(2**62)",
    "L.full((2**40, 2**40, 4), 1)",
    "L.zeros(1).new_zeros((2**62, 6))",
    "L.empty(2**40, 2**40).numel()",
    "L.zeros(3, 2**62).numel()",
    "L.zeros(2**31, 2**31, 2)",
    "L.ones(2**62, 3, dtype=L.uint8)",
    "L.empty(2**61)",
    "L.zeros(0, 2**62, 2**62)",
    "L.empty(0).view(2**62, 2**62, 0)",
    "L.empty(-1)",
    "L.linspace(0, 1, 2**62)",
    "L.eye(2**40)",
    "L.eye(2**32, 2**32)",
    # materialising an expand of >= 2**62 elements
    "L.zeros(1).expand(2**62).contiguous()",
    "L.zeros(1).expand(2**62).clone()",
    "L.zeros(1).expand(2**62) + 1",
    "L.zeros(1).expand(2**40, 2**40)",
    "L.zeros(1).expand(-2)",
    "L.ones(4).reshape(2, -1).expand(2**61, 2, 2).reshape(-1)",
    # as_strided / empty_strided bounds
    "L.arange(5.).as_strided((3,), (2**61,))",
    "L.arange(5.).as_strided((1,), (1,), 2**63 - 1)",
    "L.arange(5.).as_strided((3,), (1,), -1)",
    "L.zeros(5).as_strided((-1,), (1,))",
    "L.zeros(5).as_strided((2,), (-1,))",
    "L.ones(3).as_strided((2,), (2**62,), 0)",
    "L.empty_strided((2, 3), (-1, 1))",
    "L.empty_strided((2**62,), (2,))",
    "L.empty_strided((3,), (2**62,))",
    "L.empty_strided((2, 2), (2**62, 2**62))",
    "L.empty_strided((-1,), (1,))",
    # unfold
    "L.arange(10.).unfold(0, -5, 1)",
    "L.arange(10.).unfold(0, -5, 0)",
    "L.ones(10).unfold(0, 2**62, 1)",
    "L.ones(10).unfold(0, 3, 0)",
    # resize_
    "L.zeros(1).resize_(2**62)",
    "L.zeros(1).resize_(2**30, 2**30, 16)",
    "L.zeros(1).resize_(-1)",
    # allocation failures: the process goes on
    "L.empty(2**45)",
    "L.ones(2**45)",
    "L.empty(2**60, dtype=L.uint8)",
    "L.linspace(0, 1, 2**45)",
    "L.zeros(1).resize_(2**45)",
    # arange
    "L.arange(0, 10, 0.5, dtype=L.int64)",
    "L.arange(0, 10, 0)",
    "L.arange(0, 10, -1)",
    "L.arange(0, float('inf'))",
    "L.arange(0, 1e300, 1e-300)",
    "L.arange(0, 1e30, dtype=L.int64)",
    "L.arange(0, 1e30, dtype=L.int32)",
    "L.arange(0, 2**63 - 1, 2**62, dtype=L.int64)",
]


def torch_exception(code):
    try:
        eval(code, {"L": torch})
    except Exception as e:  # noqa: BLE001 - compared by type
        return type(e).__name__, str(e)
    raise AssertionError(f"torch does not raise for {code}")


def run_child(code, timeout=120):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("code", BAD_INPUTS)
def test_bad_sizes_raise_torch_exception_type(code):
    expected_type, expected_msg = torch_exception(code)
    child = run_child(f"""
        import ember as L
        try:
            {code}
        except Exception as e:
            print(type(e).__name__)
            print(str(e))
        else:
            print("no exception")
        print("alive", L.zeros(3).sum().item())  # the process goes on after the error
    """)
    assert child.returncode == 0, f"{code}: exit code {child.returncode}\n{child.stderr[-2000:]}"
    lines = child.stdout.splitlines()
    assert lines[0] == expected_type, f"{code}: ember {lines[:2]}, torch {expected_type}: {expected_msg}"
    assert lines[-1] == "alive 0.0"
    # The size/byte errors name what overflowed, as torch's do.
    for key in ("Storage size calculation overflowed with sizes=", "you tried to allocate"):
        if key in expected_msg:
            assert expected_msg[expected_msg.index(key):].split(".")[0] in lines[1], (lines[1], expected_msg)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "float16", "bfloat16", "float32",
                                   "float64"])
@pytest.mark.parametrize("args", [(0, 5, 1.5), (0.5, 5, 1.5), (0.5, 5.7, 1.5), (-0.5, 5.7, 1.5), (5.5, 0, -1.5),
                                  (-1.5, 3, 1.5), (0, 10, 0.5), (0, 300, 100), (0, 1000, 300), (10, 0, -3),
                                  (2**40, 2**40 + 3, 1), (0.1, 0.5, 0.1), (1e-3, 3.3, 0.3), (0, 2**54 + 3, 2**53),
                                  (-2**63, 2**63 - 1, 2**62), (0.0, 5.0, 1.5), (3, 3, 1)])
def test_arange_values_match_torch(args, dtype):
    try:
        t = torch.arange(*args, dtype=getattr(torch, dtype))
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(type(exc)):
            ember.arange(*args, dtype=getattr(ember, dtype))
        return
    e = ember.arange(*args, dtype=getattr(ember, dtype))
    assert str(e.dtype) == str(t.dtype)
    if t.dtype.is_floating_point:  # torch's vectorised lanes add step to a group base: last-bit differences
        torch.testing.assert_close(torch.tensor(e.tolist(), dtype=t.dtype), t)
    else:
        assert e.tolist() == t.tolist()


def test_huge_shapes_with_zero_elements_are_fine():
    for shape in [(2**62, 0), (2**62, 2, 0), (0, 2**62)]:
        e, t = ember.zeros(shape), torch.zeros(shape)
        assert e.shape == t.shape and e.stride() == t.stride() and e.numel() == 0
    e = ember.ones(2**62, 0).reshape(-1, 2**62)
    assert tuple(e.shape) == (0, 2**62)
    assert tuple(ember.empty(2**62, 0).unflatten(0, (2**31, 2**31)).shape) == (2**31, 2**31, 0)
    x = ember.arange(5.)
    assert x.as_strided((0,), (1,), 2**40).numel() == 0  # no elements: any offset is in bounds, as torch


def test_resize_failure_leaves_tensor_usable():
    x = ember.arange(4.)
    with pytest.raises(RuntimeError, match="you tried to allocate"):
        x.resize_(2**45)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        x.resize_(2**62)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_dropping_a_deep_autograd_graph_does_not_overflow_the_stack():
    child = run_child("""
        import ember
        x = ember.ones(2, requires_grad=True)
        y = x
        for _ in range(300000):
            y = y * 1.0
        del y
        z = x
        for _ in range(100000):
            z = z * z  # saved tensors hold the previous node too
        del z
        print("ok")
    """, timeout=300)
    assert child.returncode == 0 and child.stdout.strip() == "ok", child.stderr[-2000:]

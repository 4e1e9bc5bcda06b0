"""CPU values beside CUDA tensors (wrapped numbers, 0-dim CPU tensors): each kernel takes them in its parameters
(src/cuda/elementwise.cuh, Inputs), on either side, in every mix with device inputs, on the vectorised (contiguous,
aligned) and the strided pass. CUDA results equal Ember's CPU ones."""
import itertools

import numpy as np
import pytest

import ember
from conftest import assert_same

pytestmark = pytest.mark.cuda


def _layouts(dtype):
    """Contiguous (vectorised), transposed and misaligned (strided) inputs, and a tail the vector width leaves."""
    rng = np.random.default_rng(0)
    x = ember.from_numpy(rng.uniform(-5, 5, (37, 19))).to(dtype)
    return [x, x.t(), x.reshape(-1)[1:], x.reshape(-1)[:5]]


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int32", "uint8"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "maximum", "eq", "lt", "ge", "bitwise_and", "fmod"])
def test_binary_with_a_cpu_value_on_either_side(op, dtype):
    dtype = getattr(ember, dtype)
    if op in ("bitwise_and",) and dtype.is_floating_point:
        pytest.skip("bitwise ops take integers")
    if op == "fmod" and not dtype.is_floating_point:
        pytest.skip("an integer divisor of 0 raises")
    fn = getattr(ember, op)
    for x in _layouts(dtype):
        value = ember.tensor(3, dtype=dtype)  # a 0-dim CPU tensor beside CUDA ones
        for a, b in ((x, value), (value, x), (x, x.flip(0)), (x, 2), (x, x[:1])):
            if isinstance(b, int) and op in ("maximum", "bitwise_and"):
                continue  # torch's maximum and bitwise ops with a Python number take another path
            expected = fn(a, b)
            on_device = [t.cuda() if isinstance(t, ember.Tensor) and t.dim() else t for t in (a, b)]
            assert_same(fn(*on_device).cpu(), expected, check_strides=False)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bfloat16"])
def test_add_alpha_with_a_cpu_value(dtype):
    dtype = getattr(ember, dtype)
    for x in _layouts(dtype):
        expected = ember.add(x, ember.tensor(2, dtype=dtype), alpha=3)
        assert_same(ember.add(x.cuda(), ember.tensor(2, dtype=dtype), alpha=3).cpu(), expected, check_strides=False)
        assert_same((2 - x.cuda()).cpu(), 2 - x, check_strides=False)


@pytest.mark.parametrize("dtype", ["float32", "int16", "float64"])
def test_where_in_every_mix_of_cpu_values_and_device_tensors(dtype):
    dtype = getattr(ember, dtype)
    for x in _layouts(dtype):
        cond = x > 0
        values = {"cond": (cond, ember.tensor(True)), "a": (x, ember.tensor(7, dtype=dtype)),
                  "b": (x.flip(0), ember.tensor(-1, dtype=dtype))}
        for on_cpu in itertools.product([False, True], repeat=3):
            if all(on_cpu):
                continue
            args = [values[k][1] if cpu else values[k][0] for k, cpu in zip(values, on_cpu)]
            expected = ember.where(*args)
            got = ember.where(*[t if cpu else t.cuda() for t, cpu in zip(args, on_cpu)])
            assert_same(got.cpu(), expected, check_strides=False)


def test_only_cpu_values_raise():
    out = ember.empty(3, device="cuda")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ember.add(ember.tensor(1.0), ember.tensor(2.0), out=out)


def test_assigning_a_string_names_the_cuda_tensor_type():
    x = ember.zeros(3, device="cuda")
    with pytest.raises(TypeError, match=r"can't assign a str to a torch\.cuda\.FloatTensor"):
        x[0] = "a"

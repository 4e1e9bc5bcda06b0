"""Result strides of elementwise ops, cat and stack match torch's over permuted, expanded, sliced and
type-promoted operands (TensorIterator's layout rule, its fast setups, channels-last, pow(number, t))."""
import random

import pytest
import torch

import ember

DTYPES = ["float32", "float64", "int32", "int16", "uint8", "bool"]


def operand_spec(rng, shape, dtype=None):
    """A random operand broadcastable to `shape`: dims dropped or set to 1, a random memory order, maybe a
    strided slice, maybe expanded."""
    own = list(shape[rng.randint(0, len(shape)):] if rng.random() < 0.3 else shape)
    own = [1 if rng.random() < 0.3 else s for s in own]
    perm = list(range(len(own)))
    rng.shuffle(perm)
    sliced = rng.randrange(len(own)) if own and rng.random() < 0.3 else None
    return dict(own=own, perm=perm, sliced=sliced, expand=rng.random() < 0.3,
                dtype=dtype or rng.choice(DTYPES), shape=shape)


def build(lib, spec):
    own, perm = spec["own"], spec["perm"]
    stored = [own[p] * (2 if p == spec["sliced"] else 1) for p in perm]  # stored in `perm` order
    n = 1
    for s in stored:
        n *= s
    x = (lib.arange(n) % 7 - 3).reshape(stored).to(getattr(lib, spec["dtype"]))
    if spec["sliced"] is not None:
        pos = perm.index(spec["sliced"])
        x = x[(slice(None),) * pos + (slice(None, None, 2),)]
    x = x.permute([perm.index(d) for d in range(len(own))])
    if spec["expand"]:
        x = x.expand(*spec["shape"][len(spec["shape"]) - len(own):]) if own else x
    return x


def random_shape(rng):
    return [rng.choice([1, 2, 3, 4]) for _ in range(rng.randint(1, 4))]


def check(fn, *specs):
    t = fn(torch, *[build(torch, s) for s in specs])
    e = fn(ember, *[build(ember, s) for s in specs])
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype) == str(t.dtype)
    assert e.stride() == t.stride(), (specs, e.stride(), t.stride())


BINARY = {
    "add": lambda lib, a, b: lib.add(a, b),
    "mul": lambda lib, a, b: lib.mul(a, b),
    "eq": lambda lib, a, b: lib.eq(a, b),
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "logical_and": lambda lib, a, b: lib.logical_and(a, b),
}


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("seed", range(60))
def test_binary_layout(op, seed):
    rng = random.Random(seed)
    shape = random_shape(rng)
    a, b = operand_spec(rng, shape), operand_spec(rng, shape)
    if op == "add" and "bool" in (a["dtype"], b["dtype"]):
        a["dtype"] = "int32"
    check(BINARY[op], a, b)


@pytest.mark.parametrize("seed", range(60))
def test_binary_with_numbers_and_zero_dim(seed):
    rng = random.Random(seed)
    shape = random_shape(rng)
    a = operand_spec(rng, shape, rng.choice(["int32", "float32", "uint8"]))
    check(lambda lib, x: x * 2.5, a)
    check(lambda lib, x: lib.add(x, lib.tensor(1.5, dtype=lib.float64)), a)
    check(lambda lib, x: 0.5 ** x, a)  # torch allocates pow(number, tensor) contiguous
    check(lambda lib, x: lib.neg(x.float()), a)


@pytest.mark.parametrize("seed", range(200))
def test_ternary_layout(seed):
    rng = random.Random(seed)
    shape = random_shape(rng)
    c, a, b = (operand_spec(rng, shape, d) for d in ("bool", rng.choice(DTYPES[:3]), rng.choice(DTYPES[:3])))
    check(lambda lib, c, a, b: lib.where(c, a, b), c, a, b)
    x, lo, hi = (operand_spec(rng, shape, "float32") for _ in range(3))
    check(lambda lib, x, lo, hi: lib.clamp(x, lo, hi), x, lo, hi)
    check(lambda lib, x, lo: lib.clamp(x, min=lo), x, lo)
    check(lambda lib, s, e, w: lib.lerp(s, e, w), x, lo, hi)
    check(lambda lib, s, e: lib.lerp(s, e, 0.25), x, lo)


@pytest.mark.parametrize("seed", range(60))
def test_join_layout(seed):
    rng = random.Random(seed)
    shape = random_shape(rng)
    specs = [operand_spec(rng, shape, "float32") for _ in range(rng.randint(1, 3))]
    perm = list(range(len(shape)))
    rng.shuffle(perm)
    for s in specs:  # joined tensors have equal shapes, mostly in one memory order
        own_perm = perm if rng.random() < 0.7 else rng.sample(perm, len(perm))
        s.update(own=list(shape), expand=False, perm=own_perm, sliced=None if rng.random() < 0.7 else own_perm[0])
    dim = rng.randint(-len(shape) - 1, len(shape))
    check(lambda lib, *ts: lib.stack(list(ts), dim), *specs)
    check(lambda lib, *ts: lib.cat(list(ts), dim % len(shape)), *specs)


@pytest.mark.parametrize("make", [
    # size-1 dims of a type-converted operand keep their strides (fuzz: eq, le, fmax, logical_and, ...)
    lambda lib: lib.zeros(4, 4, 3).eq(lib.tensor([[[[-2]], [[-5]], [[-3]]]], dtype=lib.int32).permute(2, 0, 3, 1)),
    lambda lib: lib.logical_and(lib.ones(4, 1), lib.tensor([[[4, 6, 11]]], dtype=lib.uint8).transpose(0, 2)),
    # dense inputs in one layout: the output keeps it exactly; channels-last inputs give a channels-last output
    lambda lib: lib.neg(lib.zeros(2, 1, 3).as_strided((2, 1, 3), (1, 100, 2))),
    lambda lib: lib.sigmoid(lib.zeros(3, 1, 3, 2).transpose(3, 1)),
    lambda lib: lib.stack([lib.sigmoid(lib.zeros(3, 1, 3, 2).transpose(3, 1))], -5),
    lambda lib: 3.25 ** lib.tensor([[0, 1], [2, 3]], dtype=lib.int16).t(),
    # where takes the iterator's fast setups too: operands contiguous up to size-1 dims give a contiguous result
    lambda lib: lib.where(lib.ones(1, 4, 1, dtype=lib.bool), lib.zeros(1, 4, 1), lib.zeros(1, 1, 4).permute(0, 2, 1)),
])
def test_fuzz_reproducers(make):
    e, t = make(ember), make(torch)
    assert e.stride() == t.stride()

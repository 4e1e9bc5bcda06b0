"""repr() of ember tensors equals torch's, character for character, over a generated set."""
import itertools

import numpy as np
import pytest
import torch

import ember
from conftest import DTYPE_NAMES, pair_from_numpy

rng = np.random.default_rng(1234)

VALUE_KINDS = {
    "unit": lambda n: rng.standard_normal(n),
    "small": lambda n: rng.standard_normal(n) * 1e-5,
    "large": lambda n: rng.standard_normal(n) * 1e9,
    "wide": lambda n: rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n),
    "ints": lambda n: rng.integers(-100, 100, n).astype(np.float64),
    "bigints": lambda n: rng.integers(-10**9, 10**9, n).astype(np.float64),
    "positive": lambda n: rng.random(n) * 100,
    "special": lambda n: rng.choice([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-3, 7.0], n),
    "zeros": lambda n: np.zeros(n),
}

SHAPES = [(), (1,), (5,), (17,), (3, 4), (2, 3, 4), (2, 1, 2, 3), (0,), (2, 0), (0, 3, 1), (1, 25), (30, 3)]
BIG_SHAPES = [(1001,), (40, 40), (3, 500), (11, 11, 11)]


def _cases():
    cases = []
    for name in DTYPE_NAMES:
        kinds = ["unit", "ints", "special"] if name in ("bool", "uint8", "int8", "int16", "int32", "int64") else list(VALUE_KINDS)
        for kind, shape in itertools.product(kinds, SHAPES):
            cases.append((name, kind, shape))
        for shape in BIG_SHAPES:
            cases.append((name, "unit", shape))
    return cases


CASES = _cases()


def _make(name, kind, shape):
    n = int(np.prod(shape)) if shape else 1
    values = VALUE_KINDS[kind](n).reshape(shape)
    if name in ("bool", "uint8", "int8", "int16", "int32", "int64"):
        values = np.nan_to_num(values, nan=0.0, posinf=50.0, neginf=-50.0)
        values = np.clip(np.round(values * 10), -100, 100)
        if name == "uint8":
            values = np.abs(values)
    return pair_from_numpy(values, name)


def test_case_count():
    assert len(CASES) >= 300


@pytest.mark.parametrize("name,kind,shape", CASES, ids=[f"{n}-{k}-{s}" for n, k, s in CASES])
def test_repr_matches_torch(name, kind, shape):
    e, t = _make(name, kind, shape)
    assert repr(e) == repr(t)
    assert str(e) == str(t)


@pytest.mark.parametrize("name", ["float32", "int64", "bfloat16"])
def test_repr_non_contiguous(name):
    e, t = _make(name, "unit", (6, 8))
    assert repr(e.T) == repr(t.T)
    assert repr(e[::2, 1::3]) == repr(t[::2, 1::3])
    assert repr(e[:, 2]) == repr(t[:, 2])


OPTIONS = [
    dict(precision=2), dict(precision=8), dict(sci_mode=True), dict(sci_mode=False), dict(linewidth=40),
    dict(edgeitems=1, threshold=10), dict(edgeitems=0, threshold=5), dict(profile="short"), dict(profile="full"),
    dict(threshold=20),
]


@pytest.mark.parametrize("opts", OPTIONS, ids=[str(o) for o in OPTIONS])
@pytest.mark.parametrize("kind,shape", [("unit", (7, 9)), ("wide", (25,)), ("ints", (3, 30)), ("large", (4, 4, 4))])
def test_print_options(opts, kind, shape):
    ember.set_printoptions(**opts)
    torch.set_printoptions(**opts)
    e, t = _make("float32", kind, shape)
    assert repr(e) == repr(t)


def test_requires_grad_suffix():
    e = ember.ones(2, 3, requires_grad=True)
    t = torch.ones(2, 3, requires_grad=True)
    assert repr(e) == repr(t)
    e = ember.zeros(70, dtype=ember.float64, requires_grad=True)
    t = torch.zeros(70, dtype=torch.float64, requires_grad=True)
    assert repr(e) == repr(t)


def test_default_dtype_changes_suffix():
    try:
        ember.set_default_dtype(ember.float64)
        torch.set_default_dtype(torch.float64)
        for mk in (lambda m: m.ones(3), lambda m: m.ones(3, dtype=m.float32), lambda m: m.zeros(0)):
            assert repr(mk(ember)) == repr(mk(torch))
    finally:
        ember.set_default_dtype(ember.float32)
        torch.set_default_dtype(torch.float32)

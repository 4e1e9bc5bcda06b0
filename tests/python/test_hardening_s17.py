"""Regression tests for session 17's fuzz findings: the whole-tensor max/min into out= over an empty input (torch
runs its kernel there, leaving the fold's identity, where max(x) without out= raises)."""
import pytest
import torch

import ember
from conftest import assert_same

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("fn", ["max", "min"])
@pytest.mark.parametrize("name", NAMES)
def test_whole_extremum_of_empty_into_out(fn, name):
    got = []
    for m in (ember, torch):  # fuzz seed 61: min(empty float32, out=zeros(0)) raised where torch gives inf
        x = m.zeros(0, dtype=getattr(m, name))
        got.append((getattr(m, fn)(x, out=m.zeros(0, dtype=getattr(m, name))),
                    getattr(m, fn)(x, out=m.zeros(3, dtype=m.float64)) if name != "bool" else None))
    for e, t in zip(*got):
        if t is not None:
            assert_same(e, t)


@pytest.mark.parametrize("fn", ["max", "min"])
def test_whole_extremum_of_empty_without_out_raises(fn):
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match="Expected reduction dim to be specified"):
            getattr(m, fn)(m.zeros(0))

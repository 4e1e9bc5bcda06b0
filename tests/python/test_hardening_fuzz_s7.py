"""Regressions for the differential fuzzer's findings of seed 6."""
import pytest
import torch

import ember


@pytest.mark.parametrize("call", [
    lambda i, f: i.pow_(f), lambda i, f: i.true_divide_(f), lambda i, f: i.div_(f), lambda i, f: i.mul_(f),
    lambda i, f: i.add_(f), lambda i, f: i.div_(f, rounding_mode="floor"), lambda i, f: i.atan2_(f),
])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "bool"])
def test_in_place_float_result_into_an_integer_tensor_raises_under_autograd(call, dtype):
    # the recorded form computes out of place first: it must refuse the cast as the kernel does (`u8 **= f`)
    outcomes = []
    for m in (torch, ember):
        i = m.ones(3, dtype=getattr(m, dtype))
        f = m.full((3,), 0.5, requires_grad=True)
        try:
            call(i, f)
            outcomes.append(("ok", i.tolist(), i.requires_grad))
        except RuntimeError as e:
            outcomes.append(("raised", str(e).split(" can't")[0], i.tolist(), i.requires_grad))
    assert outcomes[0] == outcomes[1]

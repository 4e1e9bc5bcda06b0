"""Bad input raises the exception torch raises, with torch's message, and changes no tensor."""
import pytest
import torch

import ember

CASES = [
    "x.t().view(12)", "x.view(5)", "x.view(-1, -1)", "x.view(-1, 5)", "x.transpose(0, 2)", "x[3]", "x[-4]",
    "x[0, 5]", "x[None, 5]", "x[..., 9]", "x[0, 0, 0]", "x[..., ..., 0]", "x[:, ::-1]", "x[::0]", "x[1.5]",
    "x.permute(0)", "x.permute(0, 0)", "x.expand(2, 3)", "x.expand(3, 5)", "x.expand(-1, 3, 4)", "x.expand(4)",
    "m.zeros(-1)", "m.ones(2, -3)", "m.empty(-2)", "x.narrow(0, 2, 5)", "x.narrow(0, -5, 1)", "x.select(2, 0)",
    "x.select(0, 3)", "x.squeeze(3)", "x.unsqueeze(3)", "x.unsqueeze(-4)", "x.flatten(1, 0)", "x.unflatten(1, (3, 2))",
    "x.item()", "m.tensor([[1, 2], [3]])", "m.tensor('a')", "m.tensor([1, 'a'])", "x.chunk(0)", "x.split(0)",
    "x.unfold(1, 5, 1)", "x.unfold(1, 2, 0)", "x.movedim((0, 1), (0, 0))", "x.diagonal(0, 0, 0)",
    "m.empty(2, 3).as_strided((3, 3), (1, 1), -1)", "m.empty(2, 3).as_strided((3, 3), (3, 1))",
    "m.arange(0, 10, 0)", "m.arange(10, 0)", "m.linspace(0, 1, -1)", "m.eye(-1)", "m.randint(5, 2, (3,))",
    "m.randperm(-1)", "m.tensor(1.0).view(5)", "x.t().view(m.int16)", "m.zeros(3).view(m.int64)",
    "m.zeros(2, 3).copy_(m.zeros(4))", "m.zeros(3).copy_(m.ones(2, 3))", "m.zeros(3).expand(2, 3).copy_(m.ones(2, 3))",
    "m.zeros(3, dtype=m.int64).requires_grad_()", "m.tensor([1.0]).mT", "m.zeros(2, 3, 4).t()", "len(m.tensor(1))",
    "m.tensor([1, 2]).item()", "bool(m.tensor([1, 2]))", "m.zeros(2).split([1, 2])", "x.reshape(0, -1)",
    "m.device('gpu')", "m.device('cuda:x')", "m.finfo(m.int32)", "m.iinfo(m.float32)", "m.set_default_dtype(m.int32)",
    "x[1, 2, 3]",
]


# Messages Ember words more precisely than torch (torch's list of device types Ember lacks, or
# torch naming the function instead of the dtype): compared on their start only.
CLEARER_THAN_TORCH = {"m.device('gpu')", "m.finfo(m.int32)", "m.iinfo(m.float32)"}


def _outcome(code, m):
    x = m.arange(12).reshape(3, 4)
    before = x.clone()
    try:
        eval(code, {"m": m, "x": x})
        result = None
    except Exception as e:  # noqa: BLE001
        result = e
    assert x.tolist() == before.tolist(), "a failing call changed its input"
    return result


@pytest.mark.parametrize("code", CASES)
def test_error_matches_torch(code):
    et, ee = _outcome(code, torch), _outcome(code, ember)
    assert et is not None, f"torch accepted {code}"
    assert ee is not None, f"ember accepted {code}"
    assert type(ee).__name__ == type(et).__name__, (ee, et)
    first_line = str(et).splitlines()[0]
    if code in CLEARER_THAN_TORCH:
        first_line = first_line[:25]
    assert str(ee).startswith(first_line) or first_line in str(ee), (str(ee), str(et))


def test_failed_copy_leaves_target_unchanged():
    a = ember.arange(6.0)
    with pytest.raises(RuntimeError, match="single memory location"):
        a[1:].copy_(a[:-1])
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]

"""Every view op on contiguous and non-contiguous inputs: values, shapes, strides, offsets, shared storage."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome


def _inputs():
    """(name, builder) where builder(lib) makes the same tensor in ember or torch."""
    base = lambda m: m.arange(2 * 3 * 4 * 5, dtype=m.float32).reshape(2, 3, 4, 5)
    return {
        "contiguous": base,
        "transposed": lambda m: base(m).transpose(1, 3),
        "sliced": lambda m: base(m)[:, 1:, ::2, 1:4],
        "permuted": lambda m: base(m).permute(3, 1, 0, 2),
        "expanded": lambda m: m.arange(5, dtype=m.float32).reshape(1, 1, 1, 5).expand(2, 3, 4, 5),
        "offset": lambda m: base(m)[1],
    }


INPUTS = _inputs()

# Each op: (name, fn(tensor, lib)); all must be views in torch for every input where torch succeeds.
VIEW_OPS = [
    ("view_flat", lambda x, m: x.view(-1)),
    ("view_split_last", lambda x, m: x.view(*x.shape[:-1], x.shape[-1], 1)),
    ("reshape", lambda x, m: x.reshape(x.shape[0], -1)),
    ("reshape_flat", lambda x, m: x.reshape(-1)),
    ("transpose", lambda x, m: x.transpose(0, -1)),
    ("t_of_2d", lambda x, m: x.flatten(1).t() if x.dim() > 1 else x.t()),
    ("T", lambda x, m: x.T),
    ("mT", lambda x, m: x.mT),
    ("permute", lambda x, m: x.permute(*reversed(range(x.dim())))),
    ("squeeze", lambda x, m: x.unsqueeze(1).squeeze()),
    ("squeeze_dim", lambda x, m: x.unsqueeze(0).squeeze(0)),
    ("squeeze_dims", lambda x, m: x.unsqueeze(0).unsqueeze(-1).squeeze((0, -1))),
    ("unsqueeze0", lambda x, m: x.unsqueeze(0)),
    ("unsqueeze_last", lambda x, m: x.unsqueeze(-1)),
    ("unsqueeze_mid", lambda x, m: x.unsqueeze(2)),
    ("flatten", lambda x, m: x.flatten()),
    ("flatten_range", lambda x, m: x.flatten(1, 2)),
    ("unflatten", lambda x, m: x.unflatten(-1, (1, x.shape[-1]))),
    ("expand", lambda x, m: x.unsqueeze(0).expand(3, *x.shape)),
    ("expand_as", lambda x, m: x[:1].expand_as(x)),
    ("narrow", lambda x, m: x.narrow(1, 1, 1)),
    ("narrow_neg", lambda x, m: x.narrow(-1, -2, 2)),
    ("select", lambda x, m: x.select(1, -1)),
    ("unfold", lambda x, m: x.unfold(-1, 2, 1)),
    ("unfold_step", lambda x, m: x.unfold(0, 1, 2)),
    ("as_strided", lambda x, m: x.as_strided((2, 2), (1, 2))),
    ("split0", lambda x, m: x.split(1)[-1]),
    ("split_sizes", lambda x, m: x.split([1, x.shape[1] - 1], 1)[1]),
    ("chunk", lambda x, m: x.chunk(2, -1)[1]),
    ("unbind", lambda x, m: x.unbind(1)[0]),
    ("diagonal", lambda x, m: x.diagonal()),
    ("diagonal_offset", lambda x, m: x.diagonal(1, -1, -2)),
    ("diagonal_neg", lambda x, m: x.diagonal(-1, 0, 2)),
    ("movedim", lambda x, m: x.movedim(0, -1)),
    ("movedim_multi", lambda x, m: x.movedim((0, 1), (-1, 0))),
    ("index_int", lambda x, m: x[1]),
    ("index_tuple", lambda x, m: x[0, 1:]),
    ("index_step", lambda x, m: x[..., ::2]),
    ("index_none", lambda x, m: x[None, :, None]),
    ("index_neg", lambda x, m: x[-1, -2]),
    ("index_bool", lambda x, m: x[True]),
    ("index_bool_mid", lambda x, m: x[:, True]),
    ("index_bool_pair", lambda x, m: x[True, :, False]),
    ("index_bool_int", lambda x, m: x[0, True]),
    ("index_ellipsis_mid", lambda x, m: x[0, ..., 1]),
    ("index_empty_slice", lambda x, m: x[2:1]),
    ("view_dtype_same_size", lambda x, m: x.view(m.int32)),
    ("view_dtype_smaller", lambda x, m: x.view(m.int16) if x.stride(-1) == 1 else x.view(m.int32)),
    ("alias_ops", lambda x, m: m.transpose(m.squeeze(m.unsqueeze(x, 0), 0), 0, 1)),
]


@pytest.mark.parametrize("input_name", list(INPUTS))
@pytest.mark.parametrize("op_name,op", VIEW_OPS, ids=[o[0] for o in VIEW_OPS])
def test_view_matches_torch(input_name, op_name, op):
    xt, xe = INPUTS[input_name](torch), INPUTS[input_name](ember)
    rt, et = outcome(lambda: op(xt, torch))
    re, ee = outcome(lambda: op(xe, ember))
    if et is not None:
        assert ee is not None, f"torch raised {et!r}, ember returned {re}"
        assert type(ee).__name__ == type(et).__name__, (ee, et)
        return
    assert ee is None, f"ember raised {ee!r}"
    assert_same(re, rt)
    assert re._is_view_of_same_storage(xe) == (rt.untyped_storage().data_ptr() == xt.untyped_storage().data_ptr())


def test_views_write_through():
    x = ember.arange(12).reshape(3, 4)
    a = x.view(6, 2)
    a[0, 0] = 999
    assert x[0, 0].item() == 999
    x.t()[1, 2] = -5
    assert x[2, 1].item() == -5
    x[:, 0] = ember.tensor([7, 8, 9])
    assert x[:, 0].tolist() == [7, 8, 9]
    x[0, 1:] = 5
    assert x[0].tolist() == [7, 5, 5, 5]
    x[...] = 0
    assert x.tolist() == [[0] * 4] * 3


def test_reshape_copies_when_needed():
    for m in (ember, torch):
        x = m.arange(12).reshape(3, 4)
        y = x.t().reshape(12)
        assert y.is_contiguous()
    xe = ember.arange(12).reshape(3, 4).t()
    xt = torch.arange(12).reshape(3, 4).t()
    assert_same(xe.reshape(2, 6), xt.reshape(2, 6))
    assert not xe.reshape(2, 6)._is_view_of_same_storage(xe)


@pytest.mark.parametrize("shape", [(3, 0, 2), (0,), (4, 1, 0)])
def test_views_of_empty(shape):
    xe, xt = ember.zeros(shape), torch.zeros(shape)
    assert_same(xe.view(-1), xt.view(-1))
    assert_same(xe.transpose(0, -1), xt.transpose(0, -1))
    assert_same(xe.unsqueeze(1), xt.unsqueeze(1))
    assert_same(xe.reshape(-1), xt.reshape(-1))
    assert type(outcome(lambda: xe.reshape(0, -1))[1]) is type(outcome(lambda: xt.reshape(0, -1))[1])


def test_zero_dim_views():
    xe, xt = ember.tensor(3.0), torch.tensor(3.0)
    for fn in (lambda x: x.view(1), lambda x: x.unsqueeze(0), lambda x: x.reshape(()), lambda x: x.flatten(),
               lambda x: x.expand(2, 3), lambda x: x.t(), lambda x: x.T, lambda x: x[None], lambda x: x[...],
               lambda x: x.squeeze(), lambda x: x.unfold(0, 1, 1), lambda x: x.view(-1)):
        assert_same(fn(xe), fn(xt))


def test_split_chunk_tuples():
    xe, xt = ember.arange(10), torch.arange(10)
    for fe, ft in zip(xe.split(3), xt.split(3)):
        assert_same(fe, ft)
    assert len(xe.chunk(4)) == len(xt.chunk(4))
    for fe, ft in zip(xe.chunk(4), xt.chunk(4)):
        assert_same(fe, ft)
    assert len(ember.zeros(0).chunk(3)) == len(torch.zeros(0).chunk(3))
    assert isinstance(xe.split(3), tuple)

"""The real einops package on Ember tensors (the backend in ember/_einops.py), against the same calls on torch."""
import numpy as np
import pytest
import torch

import ember
from conftest import assert_same

einops = pytest.importorskip("einops")
import einops.layers.torch  # noqa: E402

X = np.random.default_rng(0).standard_normal((2, 6, 4, 6))

REARRANGE = [
    ("b c h w -> b (c h w)", {}), ("b c h w -> b h w c", {}), ("b c (h p) (w q) -> b (h w) (p q c)", {"p": 2, "q": 3}),
    ("b (g c) h w -> g b c h w", {"g": 3}), ("b c h w -> (b h) w c", {}), ("b ... w -> b w ...", {}),
    ("b c h w -> b c h w 1", {}), ("b c h w -> c b h w", {}), ("... -> (...)", {}),
]
REDUCE = [
    ("b c h w -> b c", "mean"), ("b c h w -> b c", "sum"), ("b c (h 2) (w 2) -> b c h w", "max"),
    ("b c h w -> c", "min"), ("b c h w -> b () h ()", "mean"), ("b c h w -> b c 1 1", "prod"),
]
REPEAT = [("b c h w -> b c h w r", {"r": 2}), ("b c h w -> b (c r) h w", {"r": 2}), ("b c h w -> (r b) c h w", {"r": 3})]


def pair(dtype="float64"):
    return ember.from_numpy(X).to(getattr(ember, dtype)), torch.from_numpy(X).to(getattr(torch, dtype))


@pytest.mark.parametrize("pattern,lengths", REARRANGE, ids=str)
def test_rearrange(pattern, lengths):
    e, t = pair()
    assert_same(einops.rearrange(e, pattern, **lengths), einops.rearrange(t, pattern, **lengths))


@pytest.mark.parametrize("pattern,reduction", REDUCE, ids=str)
def test_reduce(pattern, reduction):
    e, t = pair()
    assert_same(einops.reduce(e, pattern, reduction), einops.reduce(t, pattern, reduction), check_strides=False,
                rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("pattern,lengths", REPEAT, ids=str)
def test_repeat(pattern, lengths):
    e, t = pair()
    assert_same(einops.repeat(e, pattern, **lengths), einops.repeat(t, pattern, **lengths))


def test_integer_reductions_and_dtypes():
    e, t = pair("int32")
    assert_same(einops.reduce(e, "b c h w -> b", "sum"), einops.reduce(t, "b c h w -> b", "sum"))
    assert_same(einops.reduce(e, "b c h w -> b h", "max"), einops.reduce(t, "b c h w -> b h", "max"))
    e, t = pair("float16")
    assert_same(einops.rearrange(e, "b c h w -> (b c) (h w)"), einops.rearrange(t, "b c h w -> (b c) (h w)"))


def test_einsum_pack_unpack_parse_shape():
    e, t = pair()
    assert_same(einops.einsum(e, e, "b c h w, b d h w -> b c d"), einops.einsum(t, t, "b c h w, b d h w -> b c d"),
                rtol=1e-12, atol=1e-12)
    (pe, ps_e), (pt, ps_t) = einops.pack([e, e[..., 0]], "b c *"), einops.pack([t, t[..., 0]], "b c *")
    assert_same(pe, pt)
    assert ps_e == ps_t
    for a, b in zip(einops.unpack(pe, ps_e, "b c *"), einops.unpack(pt, ps_t, "b c *")):
        assert_same(a, b)
    assert einops.parse_shape(e, "b c _ w") == einops.parse_shape(t, "b c _ w")


def test_layers():
    e, t = pair()
    layers = einops._backends.get_backend(e).layers()
    assert_same(layers.Rearrange("b c h w -> b (h w) c")(e), einops.layers.torch.Rearrange("b c h w -> b (h w) c")(t))
    assert_same(layers.Reduce("b c (h 2) (w 2) -> b c h w", "max")(e),
                einops.layers.torch.Reduce("b c (h 2) (w 2) -> b c h w", "max")(t))
    assert_same(layers.Reduce("b c h w -> b c", "mean")(e), einops.layers.torch.Reduce("b c h w -> b c", "mean")(t),
                check_strides=False, rtol=1e-12, atol=1e-12)


def test_gradients_flow_through():
    e, t = pair()
    e.requires_grad_()
    t.requires_grad_()
    einops.reduce(einops.rearrange(e, "b c h w -> b h w c") ** 2, "b h w c -> b", "sum").sum().backward()
    einops.reduce(einops.rearrange(t, "b c h w -> b h w c") ** 2, "b h w c -> b", "sum").sum().backward()
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy())


def test_errors_match_torch():
    e, t = pair()
    for pattern, kw in [("b c h w -> b c", {}), ("b c (h p) w -> b c h w", {"p": 5}), ("a b -> a b", {})]:
        with pytest.raises(einops.EinopsError):
            einops.rearrange(t, pattern, **kw)
        with pytest.raises(einops.EinopsError):
            einops.rearrange(e, pattern, **kw)

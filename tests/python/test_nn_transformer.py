"""ember.nn.MultiheadAttention, F.multi_head_attention_forward and the transformer layers against torch.nn."""
import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
import ember.nn.functional as EF
from conftest import assert_same

tnn = torch.nn


def E(t):
    return ember.from_numpy(t.detach().numpy().copy())


def both(make):
    ember.manual_seed(0)
    torch.manual_seed(0)
    return make(enn), make(tnn)


def same_state(em, tm, exact=True):
    assert list(em.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    for (k, a), b in zip(em.state_dict().items(), tm.state_dict().values()):
        assert_same(a, b) if exact else assert_same(a, b, rtol=1e-6, atol=1e-7)


MHA_CONFIGS = [
    dict(embed_dim=8, num_heads=2), dict(embed_dim=8, num_heads=4, bias=False),
    dict(embed_dim=8, num_heads=2, kdim=6, vdim=5), dict(embed_dim=8, num_heads=2, add_bias_kv=True),
    dict(embed_dim=8, num_heads=1, add_zero_attn=True, batch_first=True),
    dict(embed_dim=6, num_heads=3, add_bias_kv=True, add_zero_attn=True, kdim=4, vdim=4, batch_first=True),
]


@pytest.mark.parametrize("cfg", MHA_CONFIGS, ids=str)
def test_mha_init_bitwise_repr_state_dict(cfg):
    em, tm = both(lambda nn: nn.MultiheadAttention(**cfg))
    assert repr(em) == repr(tm)
    same_state(em, tm)
    for a in ["embed_dim", "kdim", "vdim", "num_heads", "head_dim", "dropout", "batch_first", "add_zero_attn",
              "_qkv_same_embed_dim"]:
        assert getattr(em, a) == getattr(tm, a), a
    assert (em.bias_k is None) == (tm.bias_k is None)
    assert type(em.out_proj).__name__ == "NonDynamicallyQuantizableLinear" and isinstance(em.out_proj, enn.Linear)


def _qkv(cfg, L=5, S=7, N=3, same=False, batched=True, seed=0):
    g = torch.Generator().manual_seed(seed)
    E_, k, v = cfg["embed_dim"], cfg.get("kdim") or cfg["embed_dim"], cfg.get("vdim") or cfg["embed_dim"]
    bf = cfg.get("batch_first", False)

    def shape(n, d):
        if not batched:
            return (n, d)
        return (N, n, d) if bf else (n, N, d)
    q = torch.randn(*shape(L, E_), generator=g)
    if same:
        return q, q, q
    return q, torch.randn(*shape(S, k), generator=g), torch.randn(*shape(S, v), generator=g)


MASKS = [
    {}, {"attn_mask": "bool2"}, {"attn_mask": "float3"}, {"key_padding_mask": "bool"},
    {"key_padding_mask": "float", "attn_mask": "float2"}, {"need_weights": False}, {"average_attn_weights": False},
    {"need_weights": False, "key_padding_mask": "bool", "attn_mask": "bool2"},
    {"need_weights": False, "attn_mask": "causal", "is_causal": True}, {"attn_mask": "causal", "is_causal": True},
]


def _masks(spec, cfg, L, S, N):
    g = torch.Generator().manual_seed(9)
    out = {}
    for k, v in spec.items():
        if v == "bool2":
            out[k] = torch.rand(L, S, generator=g) > 0.7
        elif v == "float2":
            out[k] = torch.randn(L, S, generator=g)
        elif v == "float3":
            out[k] = torch.randn(N * cfg["num_heads"], L, S, generator=g)
        elif v == "causal":
            out[k] = torch.triu(torch.ones(L, S, dtype=torch.bool), 1)
        elif v == "bool":
            m = torch.rand(N, S, generator=g) > 0.6
            m[:, 0] = False
            out[k] = m
        elif v == "float":
            out[k] = torch.randn(N, S, generator=g)
        else:
            out[k] = v
    return out


@pytest.mark.parametrize("cfg", MHA_CONFIGS, ids=str)
@pytest.mark.parametrize("spec", MASKS, ids=str)
@pytest.mark.parametrize("same", [False, True])
def test_mha_forward_values_and_grads(cfg, spec, same):
    if same and cfg.get("kdim"):
        pytest.skip("self-attention needs kdim == vdim == embed_dim")
    em, tm = both(lambda nn: nn.MultiheadAttention(**cfg))
    em.load_state_dict({k: E(v) for k, v in tm.state_dict().items()})
    L, N = 5, 3
    S = L if same or "causal" in str(spec) else 7
    q, k, v = _qkv(cfg, L, S, N, same)
    masks = _masks(spec, cfg, L, S, N)
    eq = E(q).requires_grad_(True)
    ek, ev = (eq, eq) if same else (E(k).requires_grad_(True), E(v).requires_grad_(True))
    tq = q.clone().requires_grad_(True)
    tk, tv = (tq, tq) if same else (k.clone().requires_grad_(True), v.clone().requires_grad_(True))
    emask = {n: E(m) if isinstance(m, torch.Tensor) else m for n, m in masks.items()}
    eo, ew = em(eq, ek, ev, **emask)
    to, tw = tm(tq, tk, tv, **masks)
    assert_same(eo.detach(), to.detach(), rtol=1e-5, atol=1e-5)
    assert (ew is None) == (tw is None)
    if tw is not None:
        assert_same(ew.detach(), tw.detach(), rtol=1e-5, atol=1e-6)
    g = torch.randn(*to.shape, generator=torch.Generator().manual_seed(3))
    eo.backward(E(g))
    to.backward(g)
    for a, b in [(eq, tq)] + ([] if same else [(ek, tk), (ev, tv)]):
        assert_same(a.grad, b.grad, rtol=1e-4, atol=1e-5)
    for (n, a), b in zip(em.named_parameters(), tm.parameters()):
        assert_same(a.grad, b.grad, rtol=1e-4, atol=1e-5)


def test_mha_unbatched_and_functional():
    cfg = dict(embed_dim=8, num_heads=2)
    em, tm = both(lambda nn: nn.MultiheadAttention(**cfg))
    q, k, v = _qkv(cfg, batched=False)
    eo, ew = em(E(q), E(k), E(v))
    to, tw = tm(q, k, v)
    assert_same(eo.detach(), to.detach(), rtol=1e-5, atol=1e-6)
    assert_same(ew.detach(), tw.detach(), rtol=1e-5, atol=1e-6)
    q, k, v = _qkv(cfg)
    args = (8, 2, tm.in_proj_weight, tm.in_proj_bias, None, None, False, 0.0, tm.out_proj.weight, tm.out_proj.bias)
    to, tw = torch.nn.functional.multi_head_attention_forward(q, k, v, *args, need_weights=True)
    eargs = [E(a) if isinstance(a, torch.Tensor) else a for a in args]
    eo, ew = EF.multi_head_attention_forward(E(q), E(k), E(v), *eargs, need_weights=True)
    assert_same(eo.detach(), to.detach(), rtol=1e-5, atol=1e-6)
    assert_same(ew.detach(), tw.detach(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_dropout_train_matches_torch_stream(need_weights):
    em, tm = both(lambda nn: nn.MultiheadAttention(16, 4, dropout=0.3, batch_first=True))
    q = torch.randn(2, 6, 16)
    ember.manual_seed(5)
    torch.manual_seed(5)
    eo, _ = em(E(q), E(q), E(q), need_weights=need_weights)
    to, _ = tm(q, q, q, need_weights=need_weights)
    assert_same(eo.detach(), to.detach(), rtol=1e-5, atol=1e-5)
    em.eval()
    tm.eval()
    with torch.no_grad():
        to, _ = tm(q, q, q)
    # torch's eval fast path returns a contiguous (N, L, E); Ember keeps the (L, N, E) layout transposed
    assert_same(em(E(q), E(q), E(q))[0].detach(), to, rtol=1e-5, atol=1e-5, check_strides=False)


def _raises(fn_e, fn_t):
    with pytest.raises(Exception) as te:
        fn_t()
    with pytest.raises(type(te.value)) as ee:
        fn_e()
    assert str(ee.value) == str(te.value)


def test_mha_errors_match_torch():
    _raises(lambda: enn.MultiheadAttention(0, 2), lambda: tnn.MultiheadAttention(0, 2))
    _raises(lambda: enn.MultiheadAttention(5, 2), lambda: tnn.MultiheadAttention(5, 2))
    em, tm = both(lambda nn: nn.MultiheadAttention(4, 2))
    q = torch.randn(3, 2, 4)
    cases = [
        ((q, q, q), dict(attn_mask=torch.ones(2, 2, dtype=torch.bool))),
        ((q, q, q), dict(attn_mask=torch.ones(5, 3, 3, dtype=torch.bool))),
        ((q, q, q), dict(key_padding_mask=torch.ones(2, 5, dtype=torch.bool))),
        ((q, q, q), dict(key_padding_mask=torch.ones(3, 3, dtype=torch.bool))),
        ((q, q, q), dict(attn_mask=torch.ones(3, 3, dtype=torch.int64))),
        ((q, q, q), dict(is_causal=True)),
        ((torch.randn(3, 2, 5), q, q), {}),
        ((q, torch.randn(4, 2, 4), q), {}),
        ((q, torch.randn(2, 4), q), {}),
        ((torch.randn(1, 3, 2, 4), q, q), {}),
    ]
    for args, kw in cases:
        ekw = {k: E(v) if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
        _raises(lambda: em(*[E(a) for a in args], **ekw), lambda: tm(*args, **kw))


def test_mha_subclass_and_state_dict_round_trip():
    em, tm = both(lambda nn: nn.MultiheadAttention(8, 2, kdim=3, vdim=3))
    tm2 = tnn.MultiheadAttention(8, 2, kdim=3, vdim=3)
    tm2.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in em.state_dict().items()})
    same_state(em, tm2)

    class Wrapped(enn.Module):
        def __init__(self):
            super().__init__()
            self.attn = enn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, x):
            return self.attn(x, x, x, need_weights=False)[0]

    w = Wrapped()
    assert w(ember.randn(2, 3, 8)).shape == (2, 3, 8)
    assert "(attn): MultiheadAttention(" in repr(w)


LAYER_CONFIGS = [
    dict(d_model=16, nhead=4, dim_feedforward=32), dict(d_model=16, nhead=2, dim_feedforward=24, activation="gelu",
                                                        norm_first=True, batch_first=True),
    dict(d_model=8, nhead=2, dim_feedforward=16, bias=False, layer_norm_eps=1e-6),
]


def _layer_pair(cfg, dropout=0.0):
    return both(lambda nn: nn.TransformerEncoderLayer(**cfg, dropout=dropout))


@pytest.mark.parametrize("cfg", LAYER_CONFIGS, ids=str)
def test_encoder_layer_init_repr_state(cfg):
    em, tm = _layer_pair(cfg, 0.1)
    assert repr(em) == repr(tm)
    same_state(em, tm)
    assert em.norm_first == tm.norm_first and em.activation_relu_or_gelu == bool(tm.activation_relu_or_gelu)


@pytest.mark.parametrize("cfg", LAYER_CONFIGS, ids=str)
@pytest.mark.parametrize("masks", [{}, {"src_mask": "causal"}, {"src_key_padding_mask": "bool"},
                                   {"src_mask": "causal", "is_causal": True}])
def test_encoder_layer_values_and_grads(cfg, masks):
    em, tm = _layer_pair(cfg)
    em.load_state_dict({k: E(v) for k, v in tm.state_dict().items()})
    L, N, D = 6, 3, cfg["d_model"]
    x = torch.randn(*((N, L, D) if cfg.get("batch_first") else (L, N, D)))
    kw = {}
    if masks.get("src_mask"):
        kw["src_mask"] = tnn.Transformer.generate_square_subsequent_mask(L)
    if masks.get("src_key_padding_mask"):
        kpm = torch.zeros(N, L, dtype=torch.bool)
        kpm[1, -2:] = True
        kw["src_key_padding_mask"] = kpm
    if masks.get("is_causal"):
        kw["is_causal"] = True
    ex, tx = E(x).requires_grad_(True), x.clone().requires_grad_(True)
    ey = em(ex, **{k: E(v) if isinstance(v, torch.Tensor) else v for k, v in kw.items()})
    ty = tm(tx, **kw)
    assert_same(ey.detach(), ty.detach(), rtol=1e-5, atol=1e-5)
    ey.sum().backward()
    ty.sum().backward()
    assert_same(ex.grad, tx.grad, rtol=1e-4, atol=1e-5)
    for (n, a), b in zip(em.named_parameters(), tm.parameters()):
        assert_same(a.grad, b.grad, rtol=1e-4, atol=1e-4)


def test_encoder_layer_dropout_train_same_seed():
    em, tm = _layer_pair(dict(d_model=16, nhead=4, dim_feedforward=32, batch_first=True), 0.2)
    x = torch.randn(2, 5, 16)
    ember.manual_seed(7)
    torch.manual_seed(7)
    assert_same(em(E(x)).detach(), tm(x).detach(), rtol=1e-5, atol=1e-5)


def test_encoder_stack_clones_norm_and_callable_activation():
    def make(nn):
        act = nn.GELU() if nn is enn else tnn.GELU()
        layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0, activation=act)
        return nn.TransformerEncoder(layer, 3, norm=nn.LayerNorm(8), enable_nested_tensor=False)
    em, tm = both(make)
    assert repr(em) == repr(tm)
    same_state(em, tm)
    assert em.num_layers == 3 and em.layers[0].linear1.weight is not em.layers[1].linear1.weight
    ember.manual_seed(1)
    torch.manual_seed(1)
    after_e, after_t = enn.Linear(3, 3), tnn.Linear(3, 3)  # cloning draws no random numbers
    assert_same(after_e.weight.detach(), after_t.weight.detach())
    x = torch.randn(4, 2, 8)
    mask = tnn.Transformer.generate_square_subsequent_mask(4)
    assert_same(em(E(x), mask=E(mask)).detach(), tm(x, mask=mask).detach(), rtol=1e-5, atol=1e-5)
    plain_e, plain_t = both(lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2,
                                                             enable_nested_tensor=False))
    assert repr(plain_e) == repr(plain_t) and plain_e.norm is None
    fn_e = enn.TransformerEncoderLayer(8, 2, 16, activation=lambda t: t * 2)
    assert fn_e(ember.randn(3, 2, 8)).shape == (3, 2, 8)
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        enn.TransformerEncoderLayer(8, 2, activation="tanh")
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        tnn.TransformerEncoderLayer(8, 2, activation="tanh")


@pytest.mark.parametrize("cfg", LAYER_CONFIGS, ids=str)
@pytest.mark.parametrize("masks", [False, True])
def test_decoder_layer_and_stack_values_grads(cfg, masks):
    em, tm = both(lambda nn: nn.TransformerDecoderLayer(**cfg, dropout=0.1))
    assert repr(em) == repr(tm)
    same_state(em, tm)
    em.eval()
    tm.eval()
    L, S, N, D = 5, 7, 3, cfg["d_model"]
    bf = cfg.get("batch_first")
    tgt = torch.randn(*((N, L, D) if bf else (L, N, D)))
    mem = torch.randn(*((N, S, D) if bf else (S, N, D)))
    kw = {}
    if masks:
        kw["tgt_mask"] = tnn.Transformer.generate_square_subsequent_mask(L)
        kpm = torch.zeros(N, S, dtype=torch.bool)
        kpm[0, -3:] = True
        kw["memory_key_padding_mask"] = kpm
    ekw = {k: E(v) for k, v in kw.items()}
    et, tt = E(tgt).requires_grad_(True), tgt.clone().requires_grad_(True)
    em_, tm_ = E(mem).requires_grad_(True), mem.clone().requires_grad_(True)
    ey, ty = em(et, em_, **ekw), tm(tt, tm_, **kw)
    assert_same(ey.detach(), ty.detach(), rtol=1e-5, atol=1e-5)
    ey.sum().backward()
    ty.sum().backward()
    assert_same(et.grad, tt.grad, rtol=1e-4, atol=1e-5)
    assert_same(em_.grad, tm_.grad, rtol=1e-4, atol=1e-5)
    ed, td = enn.TransformerDecoder(em, 2, norm=enn.LayerNorm(D)), tnn.TransformerDecoder(tm, 2, norm=tnn.LayerNorm(D))
    assert repr(ed) == repr(td)
    same_state(ed, td)
    ed.train()
    td.train()
    ember.manual_seed(4)
    torch.manual_seed(4)
    assert_same(ed(E(tgt), E(mem), **ekw).detach(), td(tgt, mem, **kw).detach(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cfg", [dict(d_model=16, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                                      dim_feedforward=24, dropout=0.0),
                                 dict(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2,
                                      dim_feedforward=16, dropout=0.1, batch_first=True, norm_first=True,
                                      activation="gelu")], ids=str)
def test_transformer_init_values_grads_errors(cfg):
    em, tm = both(lambda nn: nn.Transformer(**cfg))
    assert repr(em) == repr(tm)
    same_state(em, tm)
    assert (em.d_model, em.nhead, em.batch_first) == (tm.d_model, tm.nhead, tm.batch_first)
    D, bf = cfg["d_model"], cfg.get("batch_first", False)
    src = torch.randn(*((2, 6, D) if bf else (6, 2, D)))
    tgt = torch.randn(*((2, 4, D) if bf else (4, 2, D)))
    mask = tnn.Transformer.generate_square_subsequent_mask(4)
    assert_same(enn.Transformer.generate_square_subsequent_mask(4), mask)
    es, ts = E(src).requires_grad_(True), src.clone().requires_grad_(True)
    ember.manual_seed(2)
    torch.manual_seed(2)
    ey, ty = em(es, E(tgt), tgt_mask=E(mask)), tm(ts, tgt, tgt_mask=mask)
    assert_same(ey.detach(), ty.detach(), rtol=1e-5, atol=1e-5)
    ey.sum().backward()
    ty.sum().backward()
    assert_same(es.grad, ts.grad, rtol=1e-4, atol=1e-5)
    bad = torch.randn(*((3, 4, D) if bf else (4, 3, D)))
    _raises(lambda: em(E(src), E(bad)), lambda: tm(src, bad))
    _raises(lambda: em(E(src), E(tgt[..., :2])), lambda: tm(src, tgt[..., :2]))

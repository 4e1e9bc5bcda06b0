"""ember.nn.Module, the containers, nn.init, nn.utils and the first layers against torch.nn."""
import re
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
import ember.nn.functional as EF
import ember.nn.init as einit
from conftest import assert_same, to_torch

tnn = torch.nn


def both(fn):
    """fn(nn, lib) built once with ember and once with torch from the same seed."""
    ember.manual_seed(0)
    torch.manual_seed(0)
    return fn(enn, ember), fn(tnn, torch)


def tensor_pair(*shape, seed=1):
    t = torch.randn(*shape, generator=torch.Generator().manual_seed(seed))
    return ember.from_numpy(t.numpy().copy()), t


def assert_same_params(e, t, rtol=0.0, atol=0.0):
    en, tn = list(e.named_parameters()), list(t.named_parameters())
    assert [k for k, _ in en] == [k for k, _ in tn]
    for (_, a), (_, b) in zip(en, tn):
        assert_same(a.detach(), b.detach(), rtol=rtol, atol=atol)


def copy_params(e, t):
    """Gives ember module e torch module t's parameter values."""
    e.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy()) for k, v in t.state_dict().items()})


def error(fn, lib_exc=Exception):
    with pytest.raises(lib_exc) as info:
        fn()
    return type(info.value), str(info.value)


def same_error(efn, tfn):
    et, em = error(efn)
    tt, tm = error(tfn)
    assert et.__name__ == tt.__name__, (em, tm)
    assert em == tm


def make_net(nn, lib):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.body = nn.Sequential(nn.Linear(8, 8), nn.Identity(), nn.Linear(8, 3, bias=False))
            self.register_buffer("steps", lib.zeros(2))
            self.register_buffer("scratch", lib.ones(3), persistent=False)
            self.head = nn.ModuleDict({"a": nn.Linear(3, 2), "b": nn.Flatten()})

        def forward(self, x):
            return self.head["a"](self.body(self.fc1(x)))
    return Net()


# ---- construction, init, values

def test_linear_default_init_is_bitwise_torch():
    for shape in [(5, 3), (4, 4), (1, 7), (32, 64)]:
        e, t = both(lambda nn, lib: nn.Linear(*shape))
        assert_same_params(e, t)
    e, t = both(lambda nn, lib: nn.Bilinear(3, 4, 5))
    assert_same_params(e, t)
    e, t = both(make_net)
    assert_same_params(e, t)


def test_linear_values_and_gradients():
    e, t = both(lambda nn, lib: nn.Linear(5, 3))
    for shape in [(4, 5), (2, 3, 5), (5,), (2, 2, 2, 5)]:
        xe, xt = tensor_pair(*shape)
        xe.requires_grad_(True)
        xt.requires_grad_(True)
        ye, yt = e(xe), t(xt)
        assert_same(ye.detach(), yt.detach(), rtol=1e-6, atol=1e-6)
        ye.sum().backward()
        yt.sum().backward()
        assert_same(xe.grad, xt.grad, rtol=1e-6, atol=1e-6)
        assert_same(e.weight.grad, t.weight.grad, rtol=1e-5, atol=1e-5)
        assert_same(e.bias.grad, t.bias.grad, rtol=1e-6, atol=1e-6)
        e.zero_grad()
        t.zero_grad()
        assert e.weight.grad is None
    xe, xt = tensor_pair(4, 5)
    assert type(e(xe).grad_fn).__name__ == type(t(xt).grad_fn).__name__ == "AddmmBackward0"
    same_error(lambda: e(ember.ones(2, 4)), lambda: t(torch.ones(2, 4)))


def test_functional_linear_bilinear():
    xe, xt = tensor_pair(3, 4)
    we, wt = tensor_pair(2, 4, seed=2)
    be, bt = tensor_pair(2, seed=3)
    assert_same(EF.linear(xe, we, be), torch.nn.functional.linear(xt, wt, bt), rtol=1e-6, atol=1e-6)
    assert_same(EF.linear(xe, we), torch.nn.functional.linear(xt, wt), rtol=1e-6, atol=1e-6)
    x2e, x2t = tensor_pair(3, 5, seed=4)
    Be, Bt = tensor_pair(2, 4, 5, seed=5)
    assert_same(EF.bilinear(xe, x2e, Be, be), torch.nn.functional.bilinear(xt, x2t, Bt, bt), rtol=1e-5, atol=1e-5)
    same_error(lambda: EF.bilinear(xe, x2e[:2], Be), lambda: torch.nn.functional.bilinear(xt, x2t[:2], Bt))
    e, t = both(lambda nn, lib: nn.Bilinear(4, 5, 2))
    assert_same(e(xe, x2e).detach(), t(xt, x2t).detach(), rtol=1e-5, atol=1e-5)


def test_identity_flatten_unflatten():
    xe, xt = tensor_pair(2, 3, 4)
    ident = enn.Identity(54, unused="x")
    assert ident(xe) is xe
    for args in [(), (0,), (1, 2), (0, -2)]:
        assert_same(enn.Flatten(*args)(xe), tnn.Flatten(*args)(xt))
        assert repr(enn.Flatten(*args)) == repr(tnn.Flatten(*args))
    assert_same(enn.Unflatten(2, (2, 2))(xe), tnn.Unflatten(2, (2, 2))(xt))
    assert repr(enn.Unflatten(1, (3, 1))) == repr(tnn.Unflatten(1, (3, 1)))


# ---- registries, traversal, state

def test_state_dict_keys_order_and_traversal():
    e, t = both(make_net)
    assert list(e.state_dict()) == list(t.state_dict())
    assert [k for k, _ in e.named_parameters()] == [k for k, _ in t.named_parameters()]
    assert [k for k, _ in e.named_buffers()] == [k for k, _ in t.named_buffers()]
    assert [k for k, _ in e.named_modules()] == [k for k, _ in t.named_modules()]
    assert [k for k, _ in e.named_children()] == [k for k, _ in t.named_children()]
    assert [k for k, _ in e.named_parameters(prefix="m", recurse=False)] == \
        [k for k, _ in t.named_parameters(prefix="m", recurse=False)]
    assert len(list(e.modules())) == len(list(t.modules()))
    assert list(e.modules())[0] is e
    assert e._non_persistent_buffers_set == t._non_persistent_buffers_set
    assert list(e.state_dict()._metadata) == list(t.state_dict()._metadata)
    for k, v in e.state_dict().items():
        assert_same(v, t.state_dict()[k])
        assert not v.requires_grad
    assert e.state_dict(keep_vars=True)["fc1.weight"].requires_grad


def test_shared_modules_and_parameters_listed_once():
    def build(nn, lib):
        shared = nn.Linear(2, 2)
        m = nn.Sequential(shared, shared, nn.Linear(2, 2))
        return m
    e, t = both(build)
    assert [k for k, _ in e.named_parameters()] == [k for k, _ in t.named_parameters()]
    assert [k for k, _ in e.named_modules()] == [k for k, _ in t.named_modules()]
    assert [k for k, _ in e.named_parameters(remove_duplicate=False)] == \
        [k for k, _ in t.named_parameters(remove_duplicate=False)]
    assert [k for k, _ in e.named_modules(remove_duplicate=False)] == \
        [k for k, _ in t.named_modules(remove_duplicate=False)]
    assert list(e.state_dict()) == list(t.state_dict())


def test_load_state_dict_and_errors():
    e, t = both(make_net)
    sd_t = t.state_dict()
    copy_params(e, t)
    assert_same_params(e, t)
    # the layer reads its slot: loaded values are what forward uses
    xe, xt = tensor_pair(2, 4)
    assert_same(e(xe).detach(), t(xt).detach(), rtol=1e-6, atol=1e-6)

    def ember_sd(d):
        return OrderedDict((k, ember.from_numpy(v.detach().numpy().copy())) for k, v in d.items())
    partial = OrderedDict(list(sd_t.items())[1:])
    partial["extra.weight"] = torch.zeros(1)
    partial["fc1.nothing"] = torch.zeros(1)
    same_error(lambda: e.load_state_dict(ember_sd(partial)), lambda: t.load_state_dict(partial))
    re_, rt = e.load_state_dict(ember_sd(partial), strict=False), t.load_state_dict(partial, strict=False)
    assert re_.missing_keys == rt.missing_keys and re_.unexpected_keys == rt.unexpected_keys
    assert repr(re_) == repr(rt)
    assert repr(e.load_state_dict(ember_sd(sd_t))) == repr(t.load_state_dict(sd_t)) == "<All keys matched successfully>"
    bad = OrderedDict(sd_t)
    bad["fc1.weight"] = torch.zeros(3, 3)
    same_error(lambda: e.load_state_dict(ember_sd(bad)), lambda: t.load_state_dict(bad))
    same_error(lambda: e.load_state_dict(ember_sd(bad), strict=False), lambda: t.load_state_dict(bad, strict=False))
    same_error(lambda: e.load_state_dict([1]), lambda: t.load_state_dict([1]))


def test_registration_errors_and_attribute_routing():
    e, t = enn.Linear(2, 2), tnn.Linear(2, 2)
    for m, lib, nn in [(e, ember, enn), (t, torch, tnn)]:
        m.extra = 5
        m.register_buffer("buf", lib.zeros(2))
        m.register_parameter("p", None)
    assert e.extra == 5 and e.p is None
    for fn in [lambda m, lib, nn: m.register_buffer("a.b", lib.zeros(1)),
               lambda m, lib, nn: m.register_buffer("", lib.zeros(1)),
               lambda m, lib, nn: m.register_buffer("extra", lib.zeros(1)),
               lambda m, lib, nn: m.register_buffer("x", 3),
               lambda m, lib, nn: m.register_buffer(1, lib.zeros(1)),
               lambda m, lib, nn: m.register_parameter("x", lib.zeros(1)),
               lambda m, lib, nn: m.register_parameter("a.b", None),
               lambda m, lib, nn: m.add_module("x", 3),
               lambda m, lib, nn: m.add_module("a.b", nn.Identity()),
               lambda m, lib, nn: m.add_module("buf", nn.Identity()),
               lambda m, lib, nn: setattr(m, "weight", lib.zeros(2, 2)),
               lambda m, lib, nn: setattr(m, "buf", 3),
               lambda m, lib, nn: getattr(m, "missing"),
               lambda m, lib, nn: m.train(1)]:
        same_error(lambda: fn(e, ember, enn), lambda: fn(t, torch, tnn))
    # assigning a Parameter replaces the slot that forward reads
    e.weight = enn.Parameter(ember.ones(2, 2))
    e.bias = None
    assert_same(e(ember.ones(1, 2)).detach(), torch.full((1, 2), 2.0))
    assert [k for k, _ in e.named_parameters()] == ["weight"]
    del e.buf
    assert "buf" not in e.state_dict()
    e.buf = ember.zeros(1)  # a plain attribute now
    assert "buf" not in e.state_dict() and "buf" in e.__dict__
    e.sub = enn.Identity()
    assert [k for k, _ in e.named_children()] == ["sub"]
    e.sub = None
    assert e.sub is None and list(e.named_children()) == []
    assert "weight" in dir(e)


def test_train_eval_requires_grad_apply():
    e, t = both(make_net)
    for m in (e, t):
        m.eval()
    assert [m.training for m in e.modules()] == [m.training for m in t.modules()]
    assert e.train() is e
    assert all(m.training for m in e.modules())
    e.body.training = False  # one module only, as torch
    assert not e.body.training and e.body[0].training

    class Frozen(enn.Module):
        def __init__(self):
            super().__init__()
            self.inner = enn.Linear(1, 1)

        def train(self, mode=True):
            super().train(mode)
            self.inner.eval()
            return self
    outer = enn.Sequential(Frozen())
    outer.train()
    assert outer.training and outer[0].training and not outer[0].inner.training
    e.requires_grad_(False)
    assert not any(p.requires_grad for p in e.parameters())
    names = []
    e.apply(lambda m: names.append(type(m).__name__))
    t.apply(lambda m: names.append(type(m).__name__))
    assert names[:len(names) // 2] == names[len(names) // 2:]


def test_to_dtype_keeps_parameter_identity():
    e, t = both(make_net)
    w = e.fc1.weight
    e(ember.ones(1, 4)).sum().backward()
    assert e.double() is e
    assert e.fc1.weight.dtype == ember.float64 and e.fc1.weight.grad.dtype == ember.float64
    assert e.steps.dtype == ember.float64
    assert w.dtype == ember.float64  # the same tensor, its data replaced
    t.double()
    assert_same_params(e, t)
    e.to(ember.float32)
    assert e.fc1.bias.dtype == ember.float32
    e.half().bfloat16().float()
    e.to("cpu")
    same_error(lambda: e.to(ember.int64), lambda: t.to(torch.int64))


# ---- calling, hooks

def test_forward_hooks_match_torch():
    def run(nn, lib):
        calls = []
        m = nn.Linear(3, 2)
        m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        h = m.register_forward_hook(lambda mod, args, out: out + 1)
        m.register_forward_hook(lambda mod, args, out: calls.append("second"), prepend=True)
        m.register_forward_pre_hook(lambda mod, args, kwargs: calls.append(sorted(kwargs)), with_kwargs=True)
        x = lib.ones(1, 3)
        y1 = m(x)
        h.remove()
        y2 = m(x)
        return calls, y1.detach(), y2.detach()
    (ce, y1e, y2e), (ct, y1t, y2t) = both(run)
    assert ce == ct
    assert_same(y1e, y1t, rtol=1e-6)
    assert_same(y2e, y2t, rtol=1e-6)


def test_full_backward_hook_matches_torch():
    def run(nn, lib):
        seen = []
        m = nn.Linear(3, 2)

        def hook(mod, grad_input, grad_output):
            seen.append((grad_input, grad_output))
            return (grad_input[0] * 3,)
        m.register_full_backward_hook(hook)
        x = lib.ones(2, 3, requires_grad=True)
        y = m(x)
        (y * lib.arange(2.0)).sum().backward()
        return seen, x.grad, type(y.grad_fn).__name__
    (se, ge, ne), (st, gt, nt) = both(run)
    assert len(se) == len(st) == 1
    assert ne == nt == "BackwardHookFunctionBackward"
    assert_same(se[0][0][0], st[0][0][0], rtol=1e-6)
    assert_same(se[0][1][0], st[0][1][0])
    assert_same(ge, gt, rtol=1e-6)


def test_python_subclass_inside_cpp_container():
    class Double(enn.Module):
        def forward(self, x):
            return x * 2

    d = Double()
    seq = enn.Sequential(d, enn.Linear(3, 3))
    assert seq[0] is d and list(seq)[0] is d
    x = ember.ones(1, 3)
    out = seq(x)
    fired = []
    h = d.register_forward_hook(lambda m, args, y: fired.append(m) or y + 1)
    out2 = seq(x)
    assert fired == [d]
    assert not ember.equal(out, out2)
    h.remove()
    assert ember.equal(seq(x), out)
    lin_hooks = []
    seq[1].register_forward_pre_hook(lambda m, args: lin_hooks.append(1))
    seq(x)
    assert lin_hooks == [1]

    class NoForward(enn.Module):
        pass
    same_error(lambda: NoForward()(x), lambda: type("NoForward", (tnn.Module,), {})()(torch.ones(1)))
    same_error(lambda: enn.Sequential(NoForward())(x), lambda: tnn.Sequential(type("NoForward", (tnn.Module,), {})())(torch.ones(1)))


# ---- repr

def test_repr_matches_torch():
    def build(nn, lib):
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(2, 2)

            def extra_repr(self):
                return "custom=1"

        return [nn.Linear(3, 4, bias=False), nn.Identity(), nn.Bilinear(2, 3, 4), make_net(nn, lib),
                nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Identity(), nn.Linear(2, 2)]), nn.ModuleList(),
                nn.Sequential(), Block(), nn.Sequential(OrderedDict([("a", nn.Identity()), ("b", Block())])),
                nn.ParameterList([nn.Parameter(lib.ones(2, 3)), nn.Parameter(lib.ones(3))]),
                nn.ParameterList([nn.Parameter(lib.ones(2))]),
                nn.ParameterDict({"x": nn.Parameter(lib.ones(2, 2, dtype=lib.float64))}),
                nn.ModuleDict({"p": nn.Flatten(0, 1)})]
    for a, b in zip(*both(build)):
        assert repr(a) == repr(b).replace("torch.nn", "ember.nn")


# ---- containers

def test_sequential_list_operations():
    def ops(nn, lib):
        s = nn.Sequential(nn.Linear(1, 1), nn.Identity(), nn.Flatten())
        out = [len(s), type(s[-1]).__name__, [k for k, _ in s[1:].named_children()], type(s[::2]).__name__]
        s.append(nn.Linear(2, 2))
        s.insert(1, nn.Identity())
        s.insert(-1, nn.Flatten(0))
        s.extend([nn.Linear(3, 3)])
        out.append(repr(s))
        del s[0]
        out.append([k for k, _ in s.named_children()])
        s[0] = nn.Linear(5, 5)
        out.append(repr(s))
        out.append(type(s.pop(1)).__name__)
        out.append(len(s))
        return out
    oe, ot = both(ops)
    assert oe == ot
    same_error(lambda: enn.Sequential()[0], lambda: tnn.Sequential()[0])
    same_error(lambda: enn.Sequential().insert(3, enn.Identity()), lambda: tnn.Sequential().insert(3, tnn.Identity()))
    same_error(lambda: enn.Sequential(3), lambda: tnn.Sequential(3))
    seq = enn.Sequential(OrderedDict([("first", enn.Linear(2, 2)), ("second", enn.Identity())]))
    assert [k for k, _ in seq.named_children()] == ["first", "second"] and seq.first is seq[0]


def test_module_list_dict_parameter_containers():
    def ops(nn, lib):
        ml = nn.ModuleList([nn.Linear(1, 1), nn.Identity()])
        ml.append(nn.Flatten())
        ml += [nn.Identity()]
        ml.insert(0, nn.Identity())
        out = [len(ml), [type(m).__name__ for m in ml], [k for k, _ in ml[2:].named_children()]]
        del ml[1]
        out.append([k for k, _ in ml.named_children()])
        md = nn.ModuleDict({"b": nn.Identity(), "a": nn.Linear(1, 1)})
        md["c"] = nn.Flatten()
        out += [list(md), list(md.keys()), "a" in md, len(md), type(md.pop("b")).__name__, list(md)]
        md.update([("z", nn.Identity())])
        out.append([k for k, _ in md.items()])
        pl = nn.ParameterList([nn.Parameter(lib.ones(1)), lib.zeros(2)])
        pl.append(nn.Parameter(lib.ones(3)))
        out += [len(pl), [type(p).__name__ for p in pl], [k for k, _ in pl.named_parameters()]]
        pd = nn.ParameterDict({"w": nn.Parameter(lib.ones(2))})
        pd["v"] = nn.Parameter(lib.zeros(1))
        out += [list(pd), len(pd), "w" in pd, list(pd.keys()), [k for k, _ in pd.named_parameters()]]
        return out
    oe, ot = both(ops)
    oe = [x.replace("ember", "torch") if isinstance(x, str) else x for x in oe]
    assert oe == ot


# ---- nn.init

INIT_CASES = [
    ("uniform_", (4, 5), {"a": -2.0, "b": 3.0}),
    ("normal_", (3, 4), {"mean": 1.0, "std": 2.0}),
    ("normal_", (2, 5), {}),
    ("xavier_uniform_", (8, 6), {"gain": 2.0}),
    ("xavier_normal_", (3, 5), {}),
    ("kaiming_uniform_", (8, 4, 3), {}),
    ("kaiming_uniform_", (6, 10), {"a": 0.1, "mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", (3, 5), {"mode": "fan_out"}),
    ("constant_", (2, 3), {"val": 0.25}),
    ("ones_", (2, 3), {}),
    ("zeros_", (2, 3), {}),
    ("eye_", (3, 5), {}),
    ("dirac_", (6, 3, 3, 3), {"groups": 2}),
    ("dirac_", (4, 2, 5), {}),
]


@pytest.mark.parametrize("name,shape,kwargs", INIT_CASES)
def test_init_is_bitwise_torch(name, shape, kwargs):
    ember.manual_seed(3)
    torch.manual_seed(3)
    e, t = ember.empty(*shape), torch.empty(*shape)
    assert getattr(einit, name)(e, **kwargs) is e
    getattr(torch.nn.init, name)(t, **kwargs)
    assert_same(e, t)


def test_init_generator_and_leaf_parameters():
    e = enn.Parameter(ember.empty(3, 4))
    t = tnn.Parameter(torch.empty(3, 4))
    einit.kaiming_uniform_(e, generator=ember.Generator().manual_seed(5))
    torch.nn.init.kaiming_uniform_(t, generator=torch.Generator().manual_seed(5))
    assert_same(e.detach(), t.detach())
    assert e.requires_grad and e.grad_fn is None


def test_init_close_to_torch():
    for name, shape, kwargs, tol in [("trunc_normal_", (50, 40), {"std": 0.5, "a": -1.0, "b": 1.0}, 1e-5),
                                     ("trunc_normal_", (30, 20), {"a": 2.0, "b": 3.0}, 1e-5),
                                     ("orthogonal_", (6, 4), {"gain": 2.0}, 1e-5),
                                     ("orthogonal_", (3, 2, 4), {}, 1e-5),
                                     ("sparse_", (10, 6), {"sparsity": 0.3}, 1e-6),
                                     ("normal_", (64, 64), {}, 2e-6)]:
        ember.manual_seed(7)
        torch.manual_seed(7)
        e, t = ember.empty(*shape), torch.empty(*shape)
        getattr(einit, name)(e, **kwargs)
        getattr(torch.nn.init, name)(t, **kwargs)
        assert_same(e, t, rtol=tol, atol=tol)
    q = einit.orthogonal_(ember.empty(5, 5))
    assert_same(q @ q.T, torch.eye(5), atol=1e-5)


def test_init_gain_fans_and_errors():
    for args in [("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.2),
                 ("leaky_relu", 3), ("selu",)]:
        assert einit.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    for shape in [(3, 4), (5, 2, 3, 3), (2, 7, 4)]:
        assert einit._calculate_fan_in_and_fan_out(ember.empty(*shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    same_error(lambda: einit.calculate_gain("foo"), lambda: torch.nn.init.calculate_gain("foo"))
    same_error(lambda: einit.calculate_gain("leaky_relu", "x"), lambda: torch.nn.init.calculate_gain("leaky_relu", "x"))
    same_error(lambda: einit.xavier_uniform_(ember.empty(3)), lambda: torch.nn.init.xavier_uniform_(torch.empty(3)))
    same_error(lambda: einit.kaiming_uniform_(ember.empty(3, 3), mode="x"),
               lambda: torch.nn.init.kaiming_uniform_(torch.empty(3, 3), mode="x"))
    same_error(lambda: einit.eye_(ember.empty(3)), lambda: torch.nn.init.eye_(torch.empty(3)))
    same_error(lambda: einit.dirac_(ember.empty(3, 3)), lambda: torch.nn.init.dirac_(torch.empty(3, 3)))
    same_error(lambda: einit.dirac_(ember.empty(3, 3, 3), 2), lambda: torch.nn.init.dirac_(torch.empty(3, 3, 3), 2))
    same_error(lambda: einit.orthogonal_(ember.empty(3)), lambda: torch.nn.init.orthogonal_(torch.empty(3)))
    same_error(lambda: einit.sparse_(ember.empty(3), 0.1), lambda: torch.nn.init.sparse_(torch.empty(3), 0.1))
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        einit.kaiming_uniform_(ember.empty(0, 3))


# ---- nn.utils

def grads_pair(seed=0):
    e, t = both(make_net)
    copy_params(e, t)
    xe, xt = tensor_pair(4, 4, seed=seed)
    (e(xe) ** 2).sum().backward()
    (t(xt) ** 2).sum().backward()
    return e, t


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3.5])
def test_clip_grad_norm(norm_type):
    e, t = grads_pair()
    ne = enn.utils.clip_grad_norm_(e.parameters(), 0.5, norm_type=norm_type)
    nt = torch.nn.utils.clip_grad_norm_(t.parameters(), 0.5, norm_type=norm_type)
    assert_same(ne, nt, rtol=1e-5)
    for pe, pt in zip(e.parameters(), t.parameters()):
        assert_same(pe.grad, pt.grad, rtol=1e-5, atol=1e-6)


def test_clip_grad_value_vector_and_errors():
    e, t = grads_pair()
    enn.utils.clip_grad_value_(e.parameters(), 0.1)
    torch.nn.utils.clip_grad_value_(t.parameters(), 0.1)
    for pe, pt in zip(e.parameters(), t.parameters()):
        assert_same(pe.grad, pt.grad, rtol=1e-5, atol=1e-6)
    ve, vt = enn.utils.parameters_to_vector(e.parameters()), torch.nn.utils.parameters_to_vector(t.parameters())
    assert_same(ve.detach(), vt.detach(), rtol=1e-6)
    w = e.fc1.weight
    enn.utils.vector_to_parameters(ve.detach() * 2, e.parameters())
    torch.nn.utils.vector_to_parameters(vt.detach() * 2, t.parameters())
    assert e.fc1.weight is w
    assert_same_params(e, t, rtol=1e-6)
    same_error(lambda: enn.utils.vector_to_parameters([1], e.parameters()),
               lambda: torch.nn.utils.vector_to_parameters([1], t.parameters()))
    e.fc1.weight.grad[0, 0] = float("nan")
    t.fc1.weight.grad[0, 0] = float("nan")
    same_error(lambda: enn.utils.clip_grad_norm_(e.parameters(), 1.0, error_if_nonfinite=True),
               lambda: torch.nn.utils.clip_grad_norm_(t.parameters(), 1.0, error_if_nonfinite=True))
    assert_same(enn.utils.clip_grad_norm_(e.parameters(), 1.0, foreach=True),
                torch.nn.utils.clip_grad_norm_(t.parameters(), 1.0, foreach=True))
    assert_same(enn.utils.clip_grad_norm_([], 1.0), torch.nn.utils.clip_grad_norm_([], 1.0))


def test_identity_and_parameter_type():
    m = enn.Linear(3, 2)
    w = m.weight
    assert m.weight is w and isinstance(w, enn.Parameter) and isinstance(m.bias, enn.Parameter)
    assert next(iter(m.parameters())) is w and dict(m.named_parameters())["weight"] is w
    assert repr(w).startswith("Parameter containing:\n")
    p = enn.Parameter(ember.ones(2, 3))
    m.weight = p
    assert m.weight is p and m.state_dict(keep_vars=True)["weight"] is p
    pl = enn.ParameterList([ember.zeros(2)])
    assert isinstance(pl[0], enn.Parameter) and pl[0].requires_grad
    seq = enn.Sequential(m)
    assert seq[0] is m and next(iter(seq.children())) is m and list(seq.modules())[1] is m
    assert isinstance(m, enn.Module) and isinstance(seq, enn.Module)


def test_removed_or_none_weight_raises():
    for fn in [lambda m: delattr(m, "weight"), lambda m: setattr(m, "weight", None)]:
        e, t = enn.Linear(2, 2), tnn.Linear(2, 2)
        fn(e)
        fn(t)
        with pytest.raises((AttributeError, TypeError)):
            t(torch.ones(1, 2))
        with pytest.raises((AttributeError, TypeError)):
            e(ember.ones(1, 2))
    s = enn.Sequential(enn.Identity())
    s.add_module("1", None)
    same_error(lambda: s(ember.ones(1)), lambda: tnn.Sequential(tnn.Identity(), None)(torch.ones(1)))


class Shared(enn.Module):
    """A module-level subclass (pickle finds it by name) sharing one Linear twice."""

    def __init__(self):
        super().__init__()
        self.fc = enn.Linear(4, 2)
        self.seq = enn.Sequential(self.fc, enn.Flatten(0), enn.Unflatten(0, (1, 2)))
        self.register_buffer("b", ember.ones(2), persistent=False)
        self.k = 3

    def forward(self, x):
        return self.seq(x)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_deepcopy_and_pickle(how):
    import copy
    import pickle
    m = Shared().eval()
    rng = ember.get_rng_state()
    c = copy.deepcopy(m) if how == "deepcopy" else pickle.loads(pickle.dumps(m))
    assert ember.equal(rng, ember.get_rng_state())  # rebuilding draws no random numbers
    assert type(c) is Shared and c.k == 3 and not c.training and not c.seq[1].training
    assert c.seq[0] is c.fc and c.fc is not m.fc and c.fc.weight is not m.fc.weight
    assert isinstance(c.fc.weight, enn.Parameter) and c.fc.weight.requires_grad
    assert list(c.state_dict()) == list(m.state_dict()) and c._non_persistent_buffers_set == {"b"}
    assert repr(c) == repr(m)
    x = ember.ones(1, 4)
    assert ember.equal(c(x), m(x))
    assert repr(copy.deepcopy(enn.ParameterList([ember.ones(2)]))) == repr(enn.ParameterList([ember.ones(2)]))

"""ember.optim against torch.optim: trajectories over many steps, param groups, state_dict, errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import outcome, to_torch

SHAPES = [(7, 5), (33,), (3, 4, 2), ()]


def make_pair(dtype, seed=0, shapes=SHAPES):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal(s) for s in shapes]
    ep = [ember.nn.Parameter(ember.from_numpy(a.copy()).to(getattr(ember, dtype))) for a in arrs]
    tp = [torch.nn.Parameter(torch.from_numpy(a.copy()).to(getattr(torch, dtype))) for a in arrs]
    return ep, tp


def set_grads(ep, tp, rng, skip=None):
    for i, (e, t) in enumerate(zip(ep, tp)):
        if i == skip:
            e.grad, t.grad = None, None
            continue
        g = rng.standard_normal(tuple(t.shape))
        t.grad = torch.from_numpy(g).to(t.dtype)
        e.grad = ember.from_numpy(g.copy()).to(e.dtype)


def check_close(ep, tp, rtol):
    for e, t in zip(ep, tp):
        got = to_torch(e.detach()).double()
        torch.testing.assert_close(got, t.detach().double(), rtol=rtol, atol=rtol)


def run_both(name, kwargs, dtype, steps=100, groups=False):
    ep, tp = make_pair(dtype)
    if groups:  # two groups, the second with its own lr
        eo = getattr(ember.optim, name)([{"params": ep[:2]}, {"params": ep[2:], "lr": 0.05}], **kwargs)
        to = getattr(torch.optim, name)([{"params": tp[:2]}, {"params": tp[2:], "lr": 0.05}], **kwargs)
    else:
        eo, to = getattr(ember.optim, name)(ep, **kwargs), getattr(torch.optim, name)(tp, **kwargs)
    rng = np.random.default_rng(1)
    for step in range(steps):
        set_grads(ep, tp, rng, skip=1 if step % 7 == 3 else None)  # parameters without a grad are skipped
        eo.step()
        to.step()
    return ep, tp, eo, to


SETTINGS = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.5, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.01, betas=(0.3, 0.9), eps=1e-3)),
    ("AdamW", dict()),
    ("AdamW", dict(lr=0.01, weight_decay=0.3, amsgrad=True)),
    ("AdamW", dict(lr=0.02, maximize=True, betas=(0.6, 0.95))),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5, eps=1e-6)),
    ("Adagrad", dict(lr=0.05, maximize=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.001, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.002, centered=True, maximize=True)),
    ("RMSprop", dict(lr=0.002, momentum=0.9, eps=1e-4)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1)),
    ("Adadelta", dict(maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.9, t0=3, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=0, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(lr=0.05, maximize=True)),
    ("Rprop", dict(step_sizes=(1e-6, 50))),  # tuples with ints (once refused as "not a tuple of floats")
    ("Adamax", dict(betas=(0, 0.99))),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.1, beta2_decay=-0.5, eps=(1e-6, 1e-2), d=2.0, weight_decay=0.1)),
    ("Adafactor", dict(eps=(None, 0.0), maximize=True)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", SETTINGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SETTINGS)])
def test_trajectory_matches_torch(name, kwargs, dtype):
    ep, tp, eo, to = run_both(name, kwargs, dtype)
    check_close(ep, tp, 1e-6 if dtype == "float32" else 1e-12)
    es, ts = eo.state_dict(), to.state_dict()
    assert es["param_groups"] == ts["param_groups"]
    assert sorted(es["state"]) == sorted(ts["state"])
    for k in ts["state"]:
        assert sorted(es["state"][k]) == sorted(ts["state"][k])
        for key, tv in ts["state"][k].items():
            ev = es["state"][k][key]
            assert str(ev.dtype) == str(tv.dtype) and tuple(ev.shape) == tuple(tv.shape), key
            torch.testing.assert_close(to_torch(ev).double(), tv.double(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,kwargs", [SETTINGS[3], SETTINGS[5], SETTINGS[7], SETTINGS[10], SETTINGS[16]])
def test_large_parameters_match_torch(name, kwargs):
    # past the fused step's 32K-element chunks and its parallel threshold, with ragged tails
    ep, tp = make_pair("float32", shapes=[(300, 301), (70001,), (5,)])
    eo, to = getattr(ember.optim, name)(ep, **kwargs), getattr(torch.optim, name)(tp, **kwargs)
    rng = np.random.default_rng(2)
    for _ in range(20):
        set_grads(ep, tp, rng)
        eo.step()
        to.step()
    check_close(ep, tp, 1e-6)


@pytest.mark.parametrize("kwargs", [SETTINGS[i][1] for i in range(5)])
def test_sgd_steps_are_bitwise_torchs(kwargs):
    # fma where torch's kernels fuse (add with alpha): vectorised chunks and tails round as torch's
    ep, tp = make_pair("float32", shapes=[(70001,), (37,)])
    eo, to = ember.optim.SGD(ep, **kwargs), torch.optim.SGD(tp, **kwargs)
    rng = np.random.default_rng(3)
    for _ in range(10):
        set_grads(ep, tp, rng)
        eo.step()
        to.step()
    for e, t in zip(ep, tp):
        assert np.array_equal(e.detach().numpy(), t.detach().numpy())


@pytest.mark.parametrize("name,kwargs", [SETTINGS[2], SETTINGS[6], SETTINGS[10]])
def test_param_groups_match_torch(name, kwargs):
    ep, tp, eo, to = run_both(name, kwargs, "float32", steps=30, groups=True)
    check_close(ep, tp, 1e-6)
    assert eo.state_dict()["param_groups"] == to.state_dict()["param_groups"]


def test_param_group_edits_take_effect():
    ep, tp = make_pair("float32")
    eo, to = ember.optim.Adam(ep, lr=0.1), torch.optim.Adam(tp, lr=0.1)
    rng = np.random.default_rng(3)
    for step in range(20):
        for o in (eo, to):
            o.param_groups[0]["lr"] = 0.1 / (step + 1)
            o.param_groups[0]["betas"] = (0.9 - step * 0.01, 0.999)
        set_grads(ep, tp, rng)
        eo.step()
        to.step()
    check_close(ep, tp, 1e-6)


def test_add_param_group_and_state_dict_round_trip():
    ep, tp = make_pair("float32")
    eo = ember.optim.SGD(ep[:2], lr=0.1, momentum=0.9)
    to = torch.optim.SGD(tp[:2], lr=0.1, momentum=0.9)
    eo.add_param_group({"params": ep[2:], "lr": 0.01})
    to.add_param_group({"params": tp[2:], "lr": 0.01})
    rng = np.random.default_rng(5)
    for _ in range(5):
        set_grads(ep, tp, rng)
        eo.step()
        to.step()
    sd = eo.state_dict()
    assert sd["param_groups"] == to.state_dict()["param_groups"]
    # a fresh optimizer loaded from the state dict continues the same trajectory
    eo2 = ember.optim.SGD([{"params": ep[:2]}, {"params": ep[2:]}], lr=0.5)
    eo2.load_state_dict(sd)
    assert eo2.param_groups[1]["lr"] == 0.01 and eo2.param_groups[0]["params"][0] is ep[0]
    for _ in range(5):
        set_grads(ep, tp, rng)
        eo2.step()
        to.step()
    check_close(ep, tp, 1e-6)


def test_adam_state_dict_round_trip_continues_bitwise():
    ep, _ = make_pair("float32")
    ep2 = [ember.nn.Parameter(p.detach().clone()) for p in ep]
    a, b = ember.optim.AdamW(ep, lr=0.01, amsgrad=True), ember.optim.AdamW(ep2, lr=0.5)
    rng = np.random.default_rng(7)
    grads = [[rng.standard_normal(tuple(p.shape)).astype(np.float32) for p in ep] for _ in range(6)]
    for g in grads[:3]:
        for p, x in zip(ep + ep2, g + g):
            p.grad = ember.from_numpy(x.copy())
        a.step()
        b.step()
    sd = a.state_dict()  # loaded state aliases the dict's tensors (as torch): give b its own copies
    b.load_state_dict({"state": {k: {n: t.clone() for n, t in v.items()} for k, v in sd["state"].items()},
                       "param_groups": sd["param_groups"]})
    for p, q in zip(ep, ep2):
        with ember.no_grad():
            q.copy_(p)
    for g in grads[3:]:
        for p, x in zip(ep + ep2, g + g):
            p.grad = ember.from_numpy(x.copy())
        a.step()
        b.step()
    for p, q in zip(ep, ep2):
        assert ember.equal(p, q)


def test_zero_grad_and_closure():
    ep, tp = make_pair("float32", shapes=[(3,)])
    eo, to = ember.optim.SGD(ep, lr=0.1), torch.optim.SGD(tp, lr=0.1)

    def closure(p, o):
        def f():
            o.zero_grad()
            loss = (p[0] * p[0]).sum()
            loss.backward()
            return loss
        return f

    el, tl = eo.step(closure(ep, eo)), to.step(closure(tp, to))
    assert abs(el.item() - tl.item()) < 1e-5
    check_close(ep, tp, 1e-6)
    eo.zero_grad(set_to_none=False)
    assert ep[0].grad is not None and ep[0].grad.abs().sum().item() == 0
    eo.zero_grad()
    assert ep[0].grad is None
    assert eo.step() is None


@pytest.mark.parametrize("case", [
    lambda m, p: m.optim.SGD([], lr=0.1),
    lambda m, p: m.optim.SGD(p[0], lr=0.1),
    lambda m, p: m.optim.SGD(p, lr=-0.1),
    lambda m, p: m.optim.SGD(p, lr=0.1, momentum=-1),
    lambda m, p: m.optim.SGD(p, lr=0.1, weight_decay=-1),
    lambda m, p: m.optim.SGD(p, lr=0.1, nesterov=True),
    lambda m, p: m.optim.SGD([{"params": p[:2]}, {"params": p[1:]}], lr=0.1),
    lambda m, p: m.optim.SGD([{"params": set(p)}], lr=0.1),
    lambda m, p: m.optim.SGD([p[0] * 2], lr=0.1),
    lambda m, p: m.optim.SGD([1.0], lr=0.1),
    lambda m, p: m.optim.Adam(p, lr=-1),
    lambda m, p: m.optim.Adam(p, eps=-1),
    lambda m, p: m.optim.Adam(p, betas=(1.0, 0.9)),
    lambda m, p: m.optim.Adam(p, betas=(0.9, -0.1)),
    lambda m, p: m.optim.AdamW(p, weight_decay=-1),
    lambda m, p: m.optim.SGD(p, lr=0.1).add_param_group(p[0]),
    lambda m, p: m.optim.Adagrad(p, lr_decay=-1),
    lambda m, p: m.optim.Adagrad(p, initial_accumulator_value=-0.5),
    lambda m, p: m.optim.Adagrad(p, eps=-1e-5),
    lambda m, p: m.optim.RMSprop(p, alpha=-1),
    lambda m, p: m.optim.RMSprop(p, momentum=-0.5),
    lambda m, p: m.optim.Adamax(p, betas=(0.9, 1.0)),
    lambda m, p: m.optim.NAdam(p, momentum_decay=-1),
    lambda m, p: m.optim.RAdam(p, betas=(-0.1, 0.9)),
    lambda m, p: m.optim.Adadelta(p, rho=1.5),
    lambda m, p: m.optim.Adadelta(p, lr=-0.5),
    lambda m, p: m.optim.Adam(p, betas=(0, 0.99)),
    lambda m, p: m.optim.AdamW(p, 0.1, (0.9, 0)),
    lambda m, p: m.optim.Adafactor(p, beta2_decay=0.5),
    lambda m, p: m.optim.Adafactor(p, d=0.5),
    lambda m, p: m.optim.Adafactor(p, 0.1, -0.8, (None, -1.0)),
    lambda m, p: m.optim.ASGD(p, lr=-0.5),
    lambda m, p: m.optim.ASGD(p, weight_decay=-0.5),
    lambda m, p: m.optim.Rprop(p, etas=(1.2, 1.5)),
    lambda m, p: m.optim.Rprop(p, etas=(0.5, 0.9)),
    lambda m, p: m.optim.Rprop(p, 0.1, (0.5, 1.2), (1e-6, 50), False),
    lambda m, p: m.optim.SGD(p, 0.1, 0.9, 0, 0, False, 3),
    lambda m, p: m.optim.Adam(p, lrr=0.1),
    lambda m, p: m.optim.SGD(p, lr=0.1).load_state_dict({"state": {}, "param_groups": []}),
    lambda m, p: m.optim.SGD(p, lr=0.1).load_state_dict({"state": {}, "param_groups": [{"params": [0]}]}),
])
def test_errors_match_torch(case):
    ep, tp = make_pair("float32")
    (_, ee), (_, te) = outcome(lambda: case(ember, ep)), outcome(lambda: case(torch, tp))
    assert te is not None
    assert type(ee) is type(te), (ee, te)
    assert str(ee).replace("ember", "torch") == str(te), (str(ee), str(te))


class SignSGD(ember.optim.Optimizer):
    """A user's optimizer in Python, as with torch.optim.Optimizer."""

    def __init__(self, params, lr=0.01):
        super().__init__(params, dict(lr=lr))

    @ember.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    state = self.state[p]
                    state["count"] = state.get("count", 0) + 1
                    p.add_(p.grad.sign(), alpha=-group["lr"])


def test_python_subclass_optimizer():
    p = ember.nn.Parameter(ember.tensor([1.0, -2.0]))
    o = SignSGD([p], lr=0.5)
    assert isinstance(o, ember.optim.Optimizer) and o.defaults == {"lr": 0.5}
    p.grad = ember.tensor([3.0, -1.0])
    o.step()
    o.step()
    assert p.tolist() == [0.0, -1.0] and o.state[p]["count"] == 2
    assert o.state_dict() == {"state": {0: {"count": 2}}, "param_groups": [{"lr": 0.5, "params": [0]}]}
    seen = []
    h = o.register_step_post_hook(lambda opt, args, kwargs: seen.append(opt is o))
    o.step()
    h.remove()
    o.step()
    assert seen == [True]
    s = ember.optim.lr_scheduler.ExponentialLR(o, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the subclass's steps count: no step-order warning
        s.step()
    assert o.param_groups[0]["lr"] == 0.25


def test_step_hooks_as_torch():
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.ones(2)
        o = lib.optim.SGD([p], lr=0.1)
        calls = []
        pre = o.register_step_pre_hook(lambda opt, args, kwargs: calls.append(("pre", args, kwargs)))
        o.register_step_post_hook(lambda opt, args, kwargs: calls.append(("post", args, kwargs)))
        o.step()
        pre.remove()
        o.step(closure=None)
        assert calls == [("pre", (o,), {}), ("post", (o,), {}), ("post", (o,), {"closure": None})], lib


def test_param_groups_and_state_are_views():
    ep, tp = make_pair("float32")
    eo, to = ember.optim.Adam(ep, lr=0.1), torch.optim.Adam(tp, lr=0.1)
    g = eo.param_groups[0]
    assert dict(g.items()).keys() == to.param_groups[0].keys()
    assert {k: v for k, v in g.items() if k != "params"} == {k: v for k, v in to.param_groups[0].items() if k != "params"}
    g["my_key"] = [1, "x"]  # any Python value, kept as is
    assert eo.param_groups[0]["my_key"] == [1, "x"] and "my_key" in eo.state_dict()["param_groups"][0]
    del g["my_key"]
    assert "my_key" not in eo.param_groups[0]
    with pytest.raises(KeyError):
        g["missing"]
    assert len(eo.state) == 0
    set_grads(ep, tp, np.random.default_rng(0))
    eo.step()
    to.step()
    assert len(eo.state) == 4 and ep[0] in eo.state and sorted(eo.state[ep[0]]) == sorted(to.state[tp[0]])
    eo.state[ep[0]]["exp_avg"].zero_()  # state tensors are the optimizer's own
    assert eo.state[ep[0]]["exp_avg"].abs().sum().item() == 0
    assert repr(eo).splitlines()[:4] == repr(to).splitlines()[:4]


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.5, max_iter=4, history_size=2), dict(max_iter=3, max_eval=2),
                                dict(tolerance_grad=1e-3)])
def test_lbfgs_matches_torch(kw):
    rng = np.random.default_rng(0)
    A, b = rng.standard_normal((8, 3)), rng.standard_normal(8)

    def run(lib):
        w = lib.nn.Parameter(lib.zeros(3))
        X, y = lib.tensor(A.tolist()), lib.tensor(b.tolist())
        o = lib.optim.LBFGS([w], **kw)

        def closure():
            o.zero_grad()
            loss = ((X @ w - y) ** 2).mean() + (w ** 4).sum() * 0.1
            loss.backward()
            return loss

        losses = [o.step(closure).item() for _ in range(4)]
        return w.detach().tolist(), losses, o.state_dict()

    (ew, el, esd), (tw, tl, tsd) = run(ember), run(torch)
    assert ew == pytest.approx(tw, rel=1e-5, abs=1e-6) and el == pytest.approx(tl, rel=1e-5)
    assert esd["param_groups"] == tsd["param_groups"]
    assert set(esd["state"][0]) <= set(tsd["state"][0])


def test_lbfgs_errors_match_torch():
    p = [ember.nn.Parameter(ember.zeros(2)), ember.nn.Parameter(ember.zeros(2))]
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        ember.optim.LBFGS([{"params": p[:1]}, {"params": p[1:]}]).step(lambda: ember.tensor(0.0))
    with pytest.raises(TypeError, match="closure"):
        ember.optim.LBFGS(p).step()
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            q = lib.nn.Parameter(lib.ones(2))
            o = lib.optim.LBFGS([q], line_search_fn="armijo")

            def closure():
                o.zero_grad()
                loss = (q ** 2).sum()
                loss.backward()
                return loss
            o.step(closure)


def rosenbrock(m, w, X, y):
    return (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2


def quartic_least_squares(m, w, X, y):
    return ((X @ w - y) ** 2).mean() + (w ** 4).sum() * 0.1


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("problem,start,kw", [
    (rosenbrock, [-1.5, 2.0], dict(max_iter=10)), (rosenbrock, [0.3, -0.4], dict(lr=0.5, max_iter=4, history_size=2)),
    (quartic_least_squares, [0.0, 0.0, 0.0], dict()), (quartic_least_squares, [1.0, -2.0, 0.5], dict(lr=5, max_iter=3)),
], ids=["rosenbrock", "rosenbrock-short", "quartic", "quartic-long-first-step"])
def test_lbfgs_strong_wolfe_matches_torch(problem, start, kw, dtype):
    # the line search brackets and zooms (cubic interpolation); float64 follows torch's path exactly (same evaluations).
    # In float32 torch interpolates in float32 tensors, Ember in double: the paths part in the valley, both converging
    rng = np.random.default_rng(0)
    A, b = rng.standard_normal((8, 3)), rng.standard_normal(8)

    def run(lib):
        dt = getattr(lib, dtype)
        w = lib.nn.Parameter(lib.tensor(start, dtype=dt))
        X, y = lib.tensor(A.tolist(), dtype=dt), lib.tensor(b.tolist(), dtype=dt)
        o = lib.optim.LBFGS([w], line_search_fn="strong_wolfe", **kw)

        def closure():
            o.zero_grad()
            loss = problem(lib, w, X, y)
            loss.backward()
            return loss
        losses = [o.step(closure).item() for _ in range(4)]
        return w.detach().tolist(), losses, o.state_dict()["state"][0]["func_evals"]

    (ew, el, ee), (tw, tl, te) = run(ember), run(torch)
    tol = 1e-9 if dtype == "float64" else 5e-2
    assert ew == pytest.approx(tw, rel=tol, abs=tol) and el == pytest.approx(tl, rel=tol, abs=tol)
    if dtype == "float64":
        assert ee == te


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nadam_state_dict_of_float64_params_loads_and_steps(dtype):
    # torch's load moves mu_product to the parameter's dtype (float64 here): the step keeps the product there
    ep, tp, eo, to = run_both("NAdam", dict(lr=0.01, momentum_decay=0.01), dtype, steps=5)
    eo2, to2 = ember.optim.NAdam(ep, lr=0.01, momentum_decay=0.01), torch.optim.NAdam(tp, lr=0.01, momentum_decay=0.01)
    eo2.load_state_dict(eo.state_dict())
    to2.load_state_dict(to.state_dict())
    assert str(eo2.state[ep[0]]["mu_product"].dtype) == str(to2.state[tp[0]]["mu_product"].dtype)
    rng = np.random.default_rng(6)
    for _ in range(5):
        set_grads(ep, tp, rng)
        eo2.step()
        to2.step()
    check_close(ep, tp, 1e-6 if dtype == "float32" else 1e-12)
    torch.testing.assert_close(to_torch(eo2.state[ep[0]]["mu_product"]), to2.state[tp[0]]["mu_product"])


LAYOUTS = {"transposed": lambda m, a: m.from_numpy(a.copy()).t(), "sliced": lambda m, a: m.from_numpy(a.copy())[:, ::2]}


@pytest.mark.parametrize("name,kwargs", SETTINGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SETTINGS)])
@pytest.mark.parametrize("layout", ["transposed", "sliced"])
def test_strided_parameters_step_as_torch(name, kwargs, layout):
    # a transposed or sliced parameter steps in place (on a contiguous copy) with torch's values and state layout
    if name == "LBFGS":
        pytest.skip("LBFGS takes a closure")
    a = np.random.default_rng(3).standard_normal((6, 4))
    ep = ember.nn.Parameter(LAYOUTS[layout](ember, a))
    tp = torch.nn.Parameter(LAYOUTS[layout](torch, a))
    eo, to = getattr(ember.optim, name)([ep], **kwargs), getattr(torch.optim, name)([tp], **kwargs)
    for step in range(5):
        g = np.sin(np.arange(tp.numel()).reshape(tuple(tp.shape)) + step)
        ep.grad, tp.grad = ember.from_numpy(g.copy()), torch.from_numpy(g.copy())
        eo.step()
        to.step()
    assert ep.stride() == tp.stride()
    check_close([ep], [tp], 1e-6)
    for key, t in to.state[tp].items():
        if torch.is_tensor(t) and t.dim():
            assert eo.state[ep][key].stride() == t.stride(), key


@pytest.mark.parametrize("name,kwargs", SETTINGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SETTINGS)])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_parameters_step_as_torch(name, kwargs, dtype):
    # float16/bfloat16 parameters step in float32 and keep their state in their own dtype; torch steps op by op in the
    # low dtype (its eps=1e-8 vanishes in float16), so Ember must be at least as close to the float64 trajectory
    rng = np.random.default_rng(0)
    start = rng.standard_normal((7, 5))
    grads = [rng.standard_normal((7, 5)) for _ in range(5)]

    def run(lib, dt):
        low = getattr(lib, dtype)
        p = lib.nn.Parameter(lib.from_numpy(start.copy()).to(low).to(getattr(lib, dt)))
        opt = getattr(lib.optim, name)([p], **kwargs)
        for g in grads:
            p.grad = lib.from_numpy(g.copy()).to(low).to(getattr(lib, dt))
            opt.step()
        return p, opt
    (ep, eo), (tp, to), (ref, _) = run(ember, dtype), run(torch, dtype), run(torch, "float64")
    ember_error = (to_torch(ep.detach()).double() - ref.detach()).abs().max().item()
    torch_error = (tp.detach().double() - ref.detach()).abs().max().item()
    assert ember_error <= torch_error + torch.finfo(getattr(torch, dtype)).eps * max(1.0, ref.abs().max().item())
    for key, value in to.state[tp].items():
        if torch.is_tensor(value) and value.dim():
            assert str(eo.state[ep][key].dtype) == str(value.dtype), key


def test_adagrad_state_exists_before_the_first_step():
    # torch makes Adagrad's step and sum at construction (state_dict shows them); Ember made them on the first step
    def state(m):
        p = m.nn.Parameter(m.ones(2, 3))
        opt = m.optim.Adagrad([p], initial_accumulator_value=0.5)
        return {k: v.tolist() for k, v in opt.state_dict()["state"][0].items()}
    assert state(ember) == state(torch)


MUON_SETTINGS = [dict(), dict(lr=0.02, nesterov=False, weight_decay=0.0, adjust_lr_fn="match_rms_adamw"),
                 dict(momentum=0.5, ns_steps=3, ns_coefficients=(2.0, -1.5, 0.5), eps=1e-3, adjust_lr_fn="original")]


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("shape", [(4, 6), (6, 4), (8, 8)])
@pytest.mark.parametrize("kwargs", MUON_SETTINGS, ids=["defaults", "plain-momentum", "coefficients"])
def test_muon_trajectory_matches_torch(kwargs, shape, dtype):
    # Muon takes 2-D parameters only, so it is not in SETTINGS; its Newton-Schulz products run in bfloat16
    def run(m):
        rng = np.random.default_rng(0)
        w = m.nn.Parameter(m.tensor(rng.standard_normal(shape).tolist(), dtype=getattr(m, dtype)))
        opt = m.optim.Muon([w], **kwargs)
        for _ in range(5):
            w.grad = m.tensor(rng.standard_normal(shape).tolist(), dtype=getattr(m, dtype))
            opt.step()
        return w, opt
    (ew, eo), (tw, to) = run(ember), run(torch)
    tol = 1e-2 if dtype == "bfloat16" else 1e-6
    torch.testing.assert_close(to_torch(ew.detach()).double(), tw.detach().double(), rtol=tol, atol=tol)
    assert eo.state_dict()["param_groups"] == to.state_dict()["param_groups"]
    buffer = eo.state_dict()["state"][0]["momentum_buffer"]
    torch.testing.assert_close(to_torch(buffer).double(), to.state_dict()["state"][0]["momentum_buffer"].double(),
                               rtol=tol, atol=tol)  # bfloat16: lerp's ties round by float noise


@pytest.mark.parametrize("case", [
    lambda m: m.optim.Muon([m.nn.Parameter(m.ones(3))]),
    lambda m: m.optim.Muon([m.nn.Parameter(m.ones(2, 2))], lr=-1),
    lambda m: m.optim.Muon([m.nn.Parameter(m.ones(2, 2))], adjust_lr_fn="linear"),
    lambda m: m.optim.Muon([m.nn.Parameter(m.ones(2, 2))], 0.1, 0.1, -0.5),
])
def test_muon_errors_match_torch(case):
    (_, ee), (_, te) = outcome(lambda: case(ember)), outcome(lambda: case(torch))
    assert te is not None and type(ee) is type(te) and str(ee) == str(te), (ee, te)


@pytest.mark.parametrize("kwargs", [dict(ns_steps=100), dict(ns_coefficients=(1.0, 2.0))])
def test_muon_step_errors_match_torch(kwargs):
    def step(m):
        p = m.nn.Parameter(m.ones(2, 2))
        p.grad = m.ones(2, 2)
        m.optim.Muon([p], **kwargs).step()
    (_, ee), (_, te) = outcome(lambda: step(ember)), outcome(lambda: step(torch))
    assert te is not None and type(ee) is type(te) and str(ee) == str(te), (ee, te)

"""The optimizers' fused steps on CUDA against the same steps on Ember's CPU: every optimizer and option
combination of test_optim.SETTINGS for 20 steps, float32 and float64, parameters of several sizes (0-dim, empty,
past a chunk, 1M) whose step counts differ (late and skipped grads, so per-tensor scalars and flags differ within
a launch), mixed dtypes and devices in a group, state_dict round trips and lr schedulers. CUDA may differ by FMA
contraction: 1e-5 (float32) / 1e-6 (float64) relative."""
import numpy as np
import pytest

import ember
from conftest import to_torch
from test_optim import SETTINGS

pytestmark = pytest.mark.cuda

SHAPES = [(7, 5), (33,), (3, 4, 2), (), (0,), (70001,)]
RTOL = {"float32": 1e-5, "float64": 1e-6}


def make_params(dtype, shapes, device, seed=0):
    rng = np.random.default_rng(seed)
    dtypes = dtype if isinstance(dtype, list) else [dtype] * len(shapes)
    return [ember.nn.Parameter(ember.from_numpy(rng.standard_normal(s)).to(getattr(ember, d)).to(device))
            for s, d in zip(shapes, dtypes)]


def set_grads(params, rng, step):
    for i, p in enumerate(params):
        if i == 1 and (step < 2 or step % 7 == 3):  # a late first grad, then skipped ones
            p.grad = None
            continue
        p.grad = ember.from_numpy(rng.standard_normal(tuple(p.shape))).to(p.dtype).to(p.device)


def run(name, kwargs, dtype, device, shapes=SHAPES, steps=20, seed=1, scheduler=None):
    params = make_params(dtype, shapes, device)
    opt = getattr(ember.optim, name)(params, **kwargs)
    sched = scheduler(opt) if scheduler else None
    rng = np.random.default_rng(seed)
    for step in range(steps):
        set_grads(params, rng, step)
        opt.step()
        if sched:
            sched.step()
    return params, opt


def check_close(got, want, dtype):
    import torch
    rtol = RTOL[dtype if isinstance(dtype, str) else "float32"]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and tuple(g.shape) == tuple(w.shape)
        torch.testing.assert_close(to_torch(g.detach().cpu()).double(), to_torch(w.detach()).double(), rtol=rtol,
                                   atol=rtol)


def check_states(cuda_opt, cpu_opt, dtype):
    cs, hs = cuda_opt.state_dict(), cpu_opt.state_dict()
    assert cs["param_groups"] == hs["param_groups"]
    assert sorted(cs["state"]) == sorted(hs["state"])
    for k, entries in hs["state"].items():
        assert sorted(cs["state"][k]) == sorted(entries)
        for key, want in entries.items():
            got = cs["state"][k][key]
            # step (and NAdam's mu_product) stay float32 CPU tensors, as torch keeps them
            assert got.device.type == ("cpu" if key in ("step", "mu_product") else "cuda"), key
            check_close([got], [want], dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", SETTINGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SETTINGS)])
def test_steps_match_cpu(name, kwargs, dtype):
    got, cuda_opt = run(name, kwargs, dtype, "cuda")
    want, cpu_opt = run(name, kwargs, dtype, "cpu")
    assert all(p.device.type == "cuda" for p in got)
    check_close(got, want, dtype)
    check_states(cuda_opt, cpu_opt, dtype)


# One setting of each optimizer with its options on.
BUSY = [SETTINGS[3], SETTINGS[7], SETTINGS[10], SETTINGS[13], SETTINGS[16], SETTINGS[20], SETTINGS[23], SETTINGS[26],
        SETTINGS[29]]


@pytest.mark.parametrize("name,kwargs", BUSY, ids=[n for n, _ in BUSY])
def test_large_empty_and_ragged(name, kwargs):
    shapes = [(1 << 20,), (0,), (65537,), (1,), (0, 3), (65536,)]
    got, _ = run(name, kwargs, "float32", "cuda", shapes=shapes)
    want, _ = run(name, kwargs, "float32", "cpu", shapes=shapes)
    check_close(got, want, "float32")


@pytest.mark.parametrize("name,kwargs", BUSY, ids=[n for n, _ in BUSY])
def test_mixed_dtypes_in_a_group(name, kwargs):
    dtypes = ["float32", "float64", "float32", "float64"]
    shapes = [(5, 3), (70000,), (2,), ()]
    got, _ = run(name, kwargs, dtypes, "cuda", shapes=shapes)
    want, _ = run(name, kwargs, dtypes, "cpu", shapes=shapes)
    check_close(got, want, "float32")


def test_group_over_both_devices():
    params = make_params("float32", [(4, 3), (9,)], "cpu") + make_params("float32", [(4, 3), (9,)], "cuda")
    opt = ember.optim.Adam(params, lr=0.1, amsgrad=True)
    rng = np.random.default_rng(4)
    for _ in range(5):
        for p, x in zip(params, [rng.standard_normal(s) for s in [(4, 3), (9,)]] * 2):
            p.grad = ember.from_numpy(x).float().to(p.device)
        opt.step()
    check_close(params[2:], params[:2], "float32")
    assert params[0].device.type == "cpu" and params[2].device.type == "cuda"


@pytest.mark.parametrize("name,kwargs", BUSY, ids=[n for n, _ in BUSY])
def test_state_dict_round_trip(name, kwargs):
    dtype = "float32"  # NAdam's mu_product stays float32 through the load: the resumed steps are bitwise
    a_params, a = run(name, kwargs, dtype, "cuda", steps=6)
    # a CUDA optimizer's state into a new CUDA optimizer, and into a CPU one (moved to the parameters' device)
    b_params = [ember.nn.Parameter(p.detach().clone()) for p in a_params]
    c_params = [ember.nn.Parameter(p.detach().cpu().clone()) for p in a_params]
    b = getattr(ember.optim, name)(b_params, **kwargs)
    c = getattr(ember.optim, name)(c_params, **kwargs)
    sd = a.state_dict()
    for opt in (b, c):  # loaded state aliases the dict's tensors (as torch): each its own copies
        opt.load_state_dict({"state": {k: {n: t.clone() if isinstance(t, ember.Tensor) else t for n, t in v.items()}
                                       for k, v in sd["state"].items()}, "param_groups": sd["param_groups"]})
    for state in c.state.values():
        for key, t in state.items():
            if isinstance(t, ember.Tensor) and key != "step":
                assert t.device.type == "cpu", key
    rng = np.random.default_rng(9)
    for step in range(6):
        grads = [rng.standard_normal(tuple(p.shape)) for p in a_params]
        for ps in (a_params, b_params, c_params):
            for p, g in zip(ps, grads):
                p.grad = ember.from_numpy(g).to(p.dtype).to(p.device)
        a.step(), b.step(), c.step()
    for p, q in zip(a_params, b_params):
        assert np.array_equal(p.detach().cpu().numpy(), q.detach().cpu().numpy())
    check_close(a_params, c_params, dtype)


def test_cpu_state_loads_onto_cuda_params():
    # a CPU checkpoint resumed on the GPU: state moves to the parameters' device and dtype (as torch's load)
    cpu_params, cpu_opt = run("NAdam", dict(lr=0.01), "float64", "cpu", steps=4)
    cuda_params = [ember.nn.Parameter(p.detach().to("cuda")) for p in cpu_params]
    cuda_opt = ember.optim.NAdam(cuda_params, lr=0.01)
    cuda_opt.load_state_dict(cpu_opt.state_dict())
    assert cuda_opt.state[cuda_params[0]]["exp_avg"].device.type == "cuda"
    rng = np.random.default_rng(5)
    for _ in range(4):
        grads = [rng.standard_normal(tuple(p.shape)) for p in cpu_params]
        for ps in (cpu_params, cuda_params):
            for p, g in zip(ps, grads):
                p.grad = ember.from_numpy(g).to(p.device)
        cpu_opt.step(), cuda_opt.step()
    check_close(cuda_params, cpu_params, "float64")


SCHEDULERS = {
    "StepLR": lambda o: ember.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5),
    "OneCycleLR": lambda o: ember.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=20),
    "CosineAnnealingWarmRestarts": lambda o: ember.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4),
}


@pytest.mark.parametrize("sched", list(SCHEDULERS))
@pytest.mark.parametrize("name,kwargs", [SETTINGS[2], SETTINGS[6], SETTINGS[16]], ids=["SGD", "Adam", "RMSprop"])
def test_lr_schedulers_step_a_cuda_optimizer(name, kwargs, sched):
    got, cuda_opt = run(name, kwargs, "float32", "cuda", scheduler=SCHEDULERS[sched])
    want, cpu_opt = run(name, kwargs, "float32", "cpu", scheduler=SCHEDULERS[sched])
    assert cuda_opt.param_groups[0]["lr"] == cpu_opt.param_groups[0]["lr"]
    check_close(got, want, "float32")

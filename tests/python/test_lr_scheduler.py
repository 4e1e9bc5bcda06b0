"""ember.optim.lr_scheduler against torch: the learning-rate (and momentum) sequence step for step, state_dict."""
import warnings

import pytest
import torch

import ember


def pair(opt="SGD", **kw):
    ep = [ember.nn.Parameter(ember.zeros(3)), ember.nn.Parameter(ember.zeros(2))]
    tp = [torch.nn.Parameter(torch.zeros(3)), torch.nn.Parameter(torch.zeros(2))]
    kw = kw or dict(lr=0.1, momentum=0.9)
    eo = getattr(ember.optim, opt)([{"params": ep[:1]}, {"params": ep[1:], "lr": 0.05}], **kw)
    to = getattr(torch.optim, opt)([{"params": tp[:1]}, {"params": tp[1:], "lr": 0.05}], **kw)
    return eo, to


def S(name, *args, **kw):
    return lambda m, o: getattr(m.optim.lr_scheduler, name)(o, *args, **kw)


CASES = [
    S("StepLR", 7, gamma=0.5),
    S("MultiStepLR", [3, 10, 25], gamma=0.3),
    S("ExponentialLR", 0.95),
    S("CosineAnnealingLR", 17, eta_min=0.001),
    S("LambdaLR", lambda e: 1 / (e + 1)),
    S("MultiplicativeLR", lambda e: 0.97),
    S("LinearLR", start_factor=0.2, total_iters=9),
    S("ConstantLR", factor=0.4, total_iters=6),
    S("PolynomialLR", total_iters=20, power=2.0),
    S("OneCycleLR", max_lr=[1.0, 0.5], total_steps=60),
    S("OneCycleLR", max_lr=1.0, total_steps=60, anneal_strategy="linear", three_phase=True),
    S("CosineAnnealingWarmRestarts", 5, T_mult=2, eta_min=0.01),
    S("CyclicLR", 0.01, 0.1, step_size_up=4, mode="triangular2"),
    S("CyclicLR", 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.9),
    lambda m, o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.ConstantLR(o, factor=0.1, total_iters=4), m.optim.lr_scheduler.ExponentialLR(o, 0.9)],
        milestones=[5]),
    lambda m, o: m.optim.lr_scheduler.ChainedScheduler(
        [m.optim.lr_scheduler.StepLR(o, 4, 0.5), m.optim.lr_scheduler.ExponentialLR(o, 0.95)]),
]


@pytest.mark.parametrize("make", CASES, ids=range(len(CASES)))
def test_sequence_matches_torch(make):
    eo, to = pair()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        es, ts = make(ember, eo), make(torch, to)
    for _ in range(60):
        eo.step()
        to.step()
        es.step()
        ts.step()
        assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-15)
        assert [g["lr"] for g in eo.param_groups] == pytest.approx([g["lr"] for g in to.param_groups], rel=1e-12)
        assert [g["momentum"] for g in eo.param_groups] == pytest.approx([g["momentum"] for g in to.param_groups])
    esd, tsd = es.state_dict(), ts.state_dict()
    assert sorted(esd) == sorted(tsd)


def test_reduce_on_plateau_matches_torch():
    eo, to = pair()
    es = ember.optim.lr_scheduler.ReduceLROnPlateau(eo, factor=0.5, patience=2, cooldown=1)
    ts = torch.optim.lr_scheduler.ReduceLROnPlateau(to, factor=0.5, patience=2, cooldown=1)
    for loss in [5, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 2.5, 2.5, 2.5, 2.5]:
        es.step(loss)
        ts.step(loss)
        assert es.get_last_lr() == ts.get_last_lr()
    assert es.state_dict().keys() == ts.state_dict().keys()


def test_state_dict_round_trip_and_adam_betas_cycling():
    eo, to = pair("Adam", lr=0.01)
    es = ember.optim.lr_scheduler.OneCycleLR(eo, max_lr=0.1, total_steps=40)
    ts = torch.optim.lr_scheduler.OneCycleLR(to, max_lr=0.1, total_steps=40)
    for _ in range(15):
        eo.step(), to.step(), es.step(), ts.step()
        assert eo.param_groups[0]["betas"] == pytest.approx(to.param_groups[0]["betas"])
    es2 = ember.optim.lr_scheduler.OneCycleLR(eo, max_lr=0.1, total_steps=40)
    es2.load_state_dict(es.state_dict())
    for _ in range(10):
        eo.step(), to.step(), es2.step(), ts.step()
        assert es2.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)


def test_step_order_warning_as_torch():
    eo, _ = pair()
    s = ember.optim.lr_scheduler.StepLR(eo, 3)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        s.step()

"""ember.optim.lr_scheduler against torch: the learning-rate (and momentum) sequence step for step over
hundreds of steps, the closed forms of step(epoch), group edits between steps, state_dict, warnings, errors."""
import math
import warnings

import pytest
import torch

import ember
from conftest import outcome


def pair(opt="SGD", **kw):
    ep = [ember.nn.Parameter(ember.zeros(3)), ember.nn.Parameter(ember.zeros(2))]
    tp = [torch.nn.Parameter(torch.zeros(3)), torch.nn.Parameter(torch.zeros(2))]
    kw = kw or dict(lr=0.1, momentum=0.9)
    eo = getattr(ember.optim, opt)([{"params": ep[:1]}, {"params": ep[1:], "lr": 0.05}], **kw)
    to = getattr(torch.optim, opt)([{"params": tp[:1]}, {"params": tp[1:], "lr": 0.05}], **kw)
    return eo, to


def S(name, *args, **kw):
    return lambda m, o: getattr(m.optim.lr_scheduler, name)(o, *args, **kw)


def seq(m, o):
    L = m.optim.lr_scheduler
    return L.SequentialLR(o, [L.ConstantLR(o, factor=0.1, total_iters=4), L.ExponentialLR(o, 0.9),
                              L.CosineAnnealingLR(o, 30)], milestones=[5, 50])


def chained(m, o):
    L = m.optim.lr_scheduler
    return L.ChainedScheduler([L.StepLR(o, 4, 0.5), L.ExponentialLR(o, 0.95), L.LinearLR(o, 0.5, total_iters=7)])


CASES = [
    S("StepLR", 7, gamma=0.5),
    S("StepLR", 1, gamma=0.99),
    S("MultiStepLR", [3, 10, 25], gamma=0.3),
    S("MultiStepLR", [30, 10, 10, 60], gamma=0.5),
    S("ExponentialLR", 0.95),
    S("CosineAnnealingLR", 17, eta_min=0.001),
    S("CosineAnnealingLR", 40),
    S("LambdaLR", lambda e: 1 / (e + 1)),
    S("LambdaLR", [lambda e: 0.9 ** e, lambda e: 1 + e % 3]),
    S("MultiplicativeLR", lambda e: 0.97),
    S("LinearLR", start_factor=0.2, total_iters=9),
    S("LinearLR", start_factor=1.0, end_factor=0.1, total_iters=100),
    S("ConstantLR", factor=0.4, total_iters=6),
    S("PolynomialLR", total_iters=20, power=2.0),
    S("PolynomialLR", total_iters=150, power=0.5),
    S("OneCycleLR", max_lr=[1.0, 0.5], total_steps=300),
    S("OneCycleLR", max_lr=1.0, total_steps=300, anneal_strategy="linear", three_phase=True),
    S("OneCycleLR", max_lr=0.3, epochs=10, steps_per_epoch=30, pct_start=0.1, div_factor=5, final_div_factor=50,
      base_momentum=0.7, max_momentum=0.99),
    S("CosineAnnealingWarmRestarts", 5, T_mult=2, eta_min=0.01),
    S("CosineAnnealingWarmRestarts", 7),
    S("CyclicLR", 0.01, 0.1, step_size_up=4, mode="triangular2"),
    S("CyclicLR", 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.9),
    S("CyclicLR", [0.01, 0.02], [0.1, 0.3], step_size_up=5, step_size_down=11, base_momentum=0.5),
    S("CyclicLR", 0.01, 0.1, step_size_up=6, scale_fn=lambda x: 0.5 ** x, scale_mode="iterations"),
    seq,
    chained,
]


@pytest.mark.parametrize("make", CASES, ids=range(len(CASES)))
def test_sequence_matches_torch(make):
    eo, to = pair()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        es, ts = make(ember, eo), make(torch, to)
    assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-15)
    for _ in range(300):
        eo.step()
        to.step()
        es.step()
        ts.step()
        assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-15)
        assert [g["lr"] for g in eo.param_groups] == pytest.approx([g["lr"] for g in to.param_groups], rel=1e-12)
        assert [g["momentum"] for g in eo.param_groups] == pytest.approx([g["momentum"] for g in to.param_groups])
    if hasattr(ts, "last_epoch"):  # torch's ChainedScheduler has none
        assert es.last_epoch == ts.last_epoch
    # torch's state_dict keys (Ember has no entries for CyclicLR's custom scale_fn and OneCycleLR's phase table)
    assert set(es.state_dict()) ^ set(ts.state_dict()) <= {"_scale_fn_custom", "_schedule_phases"}


@pytest.mark.parametrize("make", [S("StepLR", 5, 0.5), S("ExponentialLR", 0.9), S("CosineAnnealingLR", 10),
                                  S("MultiplicativeLR", lambda e: 0.9), S("LinearLR", 0.5, total_iters=8)])
def test_group_edits_between_steps_chain_as_torch(make):
    """The chainable forms read the groups' current rates: a user's edit carries on, as in torch."""
    eo, to = pair()
    es, ts = make(ember, eo), make(torch, to)
    for step in range(40):
        eo.step(), to.step()
        if step % 9 == 4:
            for o in (eo, to):
                o.param_groups[1]["lr"] = o.param_groups[1]["lr"] * 3
        es.step(), ts.step()
        assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)


@pytest.mark.parametrize("make", [S("StepLR", 5, 0.5), S("MultiStepLR", [4, 9]), S("ExponentialLR", 0.9),
                                  S("CosineAnnealingLR", 10, 0.01), S("LinearLR", 0.5, total_iters=8),
                                  S("ConstantLR", 0.5, total_iters=8), S("PolynomialLR", 12, 2.0),
                                  S("LambdaLR", lambda e: 1 / (1 + e)), S("CosineAnnealingWarmRestarts", 4, 2)])
def test_step_with_epoch_closed_form_as_torch(make):
    eo, to = pair()
    es, ts = make(ember, eo), make(torch, to)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in [3, 7, 2, 15, 15, 30, 0, 11]:
            eo.step(), to.step()
            es.step(epoch)
            ts.step(epoch)
            assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)
            es.step()
            ts.step()
            assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)


def test_warm_restarts_fractional_epochs():
    eo, to = pair()
    es = ember.optim.lr_scheduler.CosineAnnealingWarmRestarts(eo, 3, 2)
    ts = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(to, 3, 2)
    for e in [0.5, 1.25, 2.99, 3.0, 7.5, 20.1]:
        es.step(e)
        ts.step(e)
        assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)


@pytest.mark.parametrize("kw", [dict(factor=0.5, patience=2, cooldown=1),
                                dict(mode="max", threshold_mode="abs", threshold=0.1, patience=1),
                                dict(min_lr=[0.01, 0.02], factor=0.2, patience=0)])
def test_reduce_on_plateau_matches_torch(kw):
    eo, to = pair()
    es = ember.optim.lr_scheduler.ReduceLROnPlateau(eo, **kw)
    ts = torch.optim.lr_scheduler.ReduceLROnPlateau(to, **kw)
    for loss in [5, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 2.5, 2.5, 2.5, 2.5, 2.45, 2.5, 6, 1, 1, 1, 1, 1]:
        es.step(loss)
        ts.step(torch.tensor(loss))
        assert es.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)
    assert es.last_epoch == ts.last_epoch
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
        assert eo.param_groups[1]["betas"] == pytest.approx(to.param_groups[1]["betas"])


def test_state_dict_lists_as_torch_and_torch_state_loads():
    eo, to = pair()
    es = ember.optim.lr_scheduler.CyclicLR(eo, base_lr=0.01, max_lr=0.1, step_size_up=5)
    ts = torch.optim.lr_scheduler.CyclicLR(to, base_lr=0.01, max_lr=0.1, step_size_up=5)
    for _ in range(7):
        eo.step(), to.step(), es.step(), ts.step()
    esd, tsd = es.state_dict(), ts.state_dict()
    for k in ["base_lrs", "_last_lr", "max_lrs", "base_momentums", "max_momentums"]:
        assert type(esd[k]) is type(tsd[k]) is list and esd[k] == pytest.approx(tsd[k]), k
    es2 = ember.optim.lr_scheduler.CyclicLR(eo, base_lr=0.02, max_lr=0.2, step_size_up=5)
    es2.load_state_dict({k: v for k, v in tsd.items() if k != "_scale_fn_custom"})  # torch's lists load
    for _ in range(6):
        eo.step(), to.step(), es2.step(), ts.step()
        assert es2.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)


def test_sequential_state_dict_round_trip():
    eo, to = pair()
    es, ts = seq(ember, eo), seq(torch, to)
    for _ in range(20):
        eo.step(), to.step(), es.step(), ts.step()
    sd, osd = es.state_dict(), eo.state_dict()
    assert sd["last_epoch"] == ts.state_dict()["last_epoch"] and len(sd["_schedulers"]) == 3
    es2 = seq(ember, eo)  # resets the groups' rates, as torch: the optimizer's state dict brings them back
    es2.load_state_dict(sd)
    eo.load_state_dict(osd)
    for _ in range(40):
        eo.step(), to.step(), es2.step(), ts.step()
        assert es2.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)


def test_scheduler_drives_optimizer_steps():
    """The rates a scheduler sets are the ones the C++ step uses."""
    p = ember.nn.Parameter(ember.zeros(1))
    o = ember.optim.SGD([p], lr=1.0)
    s = ember.optim.lr_scheduler.StepLR(o, 1, gamma=0.5)
    for _ in range(3):
        p.grad = ember.ones(1)
        o.step()
        s.step()
    assert p.item() == pytest.approx(-(1 + 0.5 + 0.25))


def test_step_order_warning_as_torch():
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.zeros(2))
        o = lib.optim.SGD([p], lr=0.1)
        s = lib.optim.lr_scheduler.StepLR(o, 3)
        with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
            s.step()
        o.step()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            s.step()  # in order: no warning
        with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step\\(\\)` was not necessary"):
            s.step(4)


@pytest.mark.parametrize("case", [
    S("CosineAnnealingWarmRestarts", 0),
    S("CosineAnnealingWarmRestarts", 2, T_mult=0),
    S("ConstantLR", factor=1.5),
    S("LinearLR", start_factor=0),
    S("LinearLR", end_factor=2),
    S("OneCycleLR", max_lr=0.1),
    S("OneCycleLR", max_lr=0.1, total_steps=0),
    S("OneCycleLR", max_lr=0.1, total_steps=10, pct_start=2),
    S("OneCycleLR", max_lr=0.1, total_steps=10, anneal_strategy="exp"),
    S("CyclicLR", 0.01, 0.1, mode="sawtooth"),
    S("ReduceLROnPlateau", factor=1.0),
    S("ReduceLROnPlateau", mode="avg"),
    S("ReduceLROnPlateau", threshold_mode="pct"),
    S("ReduceLROnPlateau", min_lr=[0.1, 0.2, 0.3]),
    S("LambdaLR", [lambda e: 1.0] * 3),
    S("StepLR", 3, last_epoch=5),
])
def test_errors_match_torch(case):
    eo, to = pair()
    (_, ee), (_, te) = outcome(lambda: case(ember, eo)), outcome(lambda: case(torch, to))
    assert te is not None and ee is not None, (ee, te)
    if isinstance(te, KeyError):  # torch's resume error is a KeyError; Ember's a RuntimeError with the same text
        assert "initial_lr" in str(ee)
        return
    assert type(ee) is type(te), (ee, te)
    assert str(ee) == str(te), (str(ee), str(te))


def test_one_cycle_past_total_steps_raises_as_torch():
    for lib in (ember, torch):
        o = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=0.1, momentum=0.9)
        s = lib.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=3)
        o.step()
        for _ in range(3):
            s.step()
        with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 3"):
            s.step()

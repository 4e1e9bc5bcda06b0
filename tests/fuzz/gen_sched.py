"""LR scheduler family for the differential tester: a random scheduler over an SGD optimizer (sometimes with
momentum, which OneCycleLR and CyclicLR cycle), stepped a random number of times; the result is the learning rates
(and momenta) after each step, and sometimes the state carried through state_dict into a fresh scheduler."""
try:
    import ember.optim.lr_scheduler as _ember_sched  # noqa: PLC0415 - only the names are read
    SCHED_AVAILABLE = set(dir(_ember_sched))
except ImportError:
    import torch.optim.lr_scheduler as _ember_sched
    SCHED_AVAILABLE = set(dir(_ember_sched))

S = "m.optim.lr_scheduler"


def _pick(g, *choices):
    return g.r.choice(choices)


def _args(g, options):
    """Each (name, choices) given with probability one half, as ', name=value'."""
    return "".join(f", {k}={g.r.choice(v)}" for k, v in options if g.chance(0.5))


def sched_source(g, steps):
    """(scheduler name, constructor source over optimizer _o)."""
    n = g.r.choice([name for name in BUILDERS if name in SCHED_AVAILABLE])
    return n, BUILDERS[n](g, steps)


BUILDERS = {
    "StepLR": lambda g, k: f"{S}.StepLR(_o, step_size={_pick(g, 1, 2, 3)}{_args(g, [('gamma', ['0.5', '0.1', '2.0'])])})",
    "MultiStepLR": lambda g, k: f"{S}.MultiStepLR(_o, milestones={sorted(g.r.sample(range(1, 8), 3))}"
                                f"{_args(g, [('gamma', ['0.5', '0.1'])])})",
    "ExponentialLR": lambda g, k: f"{S}.ExponentialLR(_o, gamma={_pick(g, 0.9, 0.5, 1.1)})",
    "CosineAnnealingLR": lambda g, k: f"{S}.CosineAnnealingLR(_o, T_max={_pick(g, 1, 3, 5)}"
                                      f"{_args(g, [('eta_min', ['0.0', '0.001', '0.05'])])})",
    "LinearLR": lambda g, k: f"{S}.LinearLR(_o{_args(g, [('start_factor', ['0.25', '1.0', '0.5']), ('end_factor', ['1.0', '0.1']), ('total_iters', ['1', '4', '10'])])})",
    "ConstantLR": lambda g, k: f"{S}.ConstantLR(_o{_args(g, [('factor', ['0.5', '0.25', '1.0']), ('total_iters', ['0', '2', '5'])])})",
    "PolynomialLR": lambda g, k: f"{S}.PolynomialLR(_o{_args(g, [('total_iters', ['2', '5']), ('power', ['1.0', '2.0', '0.5'])])})",
    "CosineAnnealingWarmRestarts": lambda g, k: f"{S}.CosineAnnealingWarmRestarts(_o, T_0={_pick(g, 1, 2, 3)}"
                                                f"{_args(g, [('T_mult', ['1', '2']), ('eta_min', ['0.0', '0.01'])])})",
    "OneCycleLR": lambda g, k: f"{S}.OneCycleLR(_o, max_lr={_pick(g, 0.1, 1.0)}, total_steps={k + g.r.randint(0, 3)}"
                               f"{_args(g, [('pct_start', ['0.3', '0.5', '0.1']), ('anneal_strategy', [repr('cos'), repr('linear')]), ('three_phase', ['True']), ('div_factor', ['25.0', '4.0']), ('final_div_factor', ['1e4', '10.0'])])})",
    "CyclicLR": lambda g, k: f"{S}.CyclicLR(_o, base_lr=0.01, max_lr=0.1, step_size_up={_pick(g, 1, 2, 3)}"
                             f"{_args(g, [('mode', [repr('triangular'), repr('triangular2'), repr('exp_range')]), ('gamma', ['0.9']), ('step_size_down', ['1', '4'])])})",
    "LambdaLR": lambda g, k: f"{S}.LambdaLR(_o, lr_lambda=lambda e: {_pick(g, '0.9 ** e', '1 / (e + 1)', 'e % 3 + 1')})",
    "MultiplicativeLR": lambda g, k: f"{S}.MultiplicativeLR(_o, lr_lambda=lambda e: {_pick(g, '0.9', '1.05')})",
}


def gen_sched(g):
    steps = g.r.randint(1, 9)
    name, ctor = sched_source(g, steps)
    momentum = g.r.choice(["0.0", "0.9"])
    if name in ("OneCycleLR", "CyclicLR") and momentum == "0.0" and not g.bad:
        ctor = ctor[:-1] + ", cycle_momentum=False)"
    if g.bad:  # an unknown keyword or a last_epoch without a prior run: torch's error types
        ctor = ctor.replace("(_o", g.r.choice(["(_o, bogus=1", "(_o, last_epoch=3"]), 1)
    read = "_o.param_groups[0]['lr']" + (", _o.param_groups[0]['momentum']" if momentum != "0.0" else "")
    body = f"[(_o.step(), _s.step(), ({read}))[2] for _ in range({steps})]"
    src = (f"_p = m.nn.Parameter(m.zeros(1)); _p.grad = m.ones(1); _o = m.optim.SGD([_p], lr=0.1, momentum={momentum}); "
           f"_s = {ctor}; _l = {body}")
    if g.chance(0.3):  # through state_dict into a fresh scheduler (lambdas are not saved: the same code rebuilds them)
        src += f"; _d = _s.state_dict(); _s = {ctor}; _s.load_state_dict(_d); _l += {body}"
    return f"sched.{name}", src + "; {out} = m.tensor(_l, dtype=m.float64)"


SCHED_OPS = [("sched", gen_sched, 2)]  # (family, generator, weight), appended to gen.OPS

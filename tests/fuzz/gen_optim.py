"""Optimizer family for the differential tester: a parameter made from a random tensor (any float dtype and layout,
0-dim and empty included), a random optimizer and settings, a few steps with gradients computed from the parameter
(some steps without a gradient), and, sometimes, the state carried through state_dict into a fresh optimizer."""
try:
    import ember.optim as _ember_optim  # noqa: PLC0415 - only the names are read
    OPTIM_AVAILABLE = set(dir(_ember_optim))
except ImportError:
    import torch.optim as _ember_optim
    OPTIM_AVAILABLE = set(dir(_ember_optim))

BETAS = ["(0.9, 0.999)", "(0.5, 0.9)", "(0.0, 0.99)", "(0.95, 0.0)"]
SETTINGS = {  # name: {argument: choices}; each argument is given with probability one half
    "SGD": {"lr": ["0.1", "0.01"], "momentum": ["0.0", "0.9"], "dampening": ["0.0", "0.3"],
            "weight_decay": ["0.0", "0.1"], "nesterov": ["True"], "maximize": ["True"]},
    "Adam": {"lr": ["0.01", "0.1"], "betas": BETAS, "eps": ["1e-8", "1e-3"], "weight_decay": ["0.0", "0.1"],
             "amsgrad": ["True"], "maximize": ["True"]},
    "AdamW": {"lr": ["0.01"], "betas": BETAS, "weight_decay": ["0.0", "0.3"], "amsgrad": ["True"],
              "maximize": ["True"]},
    "Adamax": {"lr": ["0.01"], "betas": BETAS, "weight_decay": ["0.1"], "maximize": ["True"]},
    "NAdam": {"lr": ["0.01"], "betas": BETAS, "weight_decay": ["0.1"], "momentum_decay": ["0.004", "0.1"],
              "decoupled_weight_decay": ["True"], "maximize": ["True"]},
    "RAdam": {"lr": ["0.01"], "betas": BETAS, "weight_decay": ["0.1"], "decoupled_weight_decay": ["True"],
              "maximize": ["True"]},
    "Adagrad": {"lr": ["0.1"], "lr_decay": ["0.0", "0.01"], "weight_decay": ["0.1"],
                "initial_accumulator_value": ["0.0", "0.5"], "eps": ["1e-10", "1e-3"], "maximize": ["True"]},
    "Adadelta": {"lr": ["1.0", "0.5"], "rho": ["0.9", "0.5"], "eps": ["1e-6", "1e-3"], "weight_decay": ["0.1"],
                 "maximize": ["True"]},
    "RMSprop": {"lr": ["0.01"], "alpha": ["0.99", "0.5"], "eps": ["1e-8", "1e-3"], "weight_decay": ["0.1"],
                "momentum": ["0.0", "0.5"], "centered": ["True"], "maximize": ["True"]},
    "ASGD": {"lr": ["0.01", "0.1"], "lambd": ["1e-4", "0.1"], "alpha": ["0.75", "1.0"], "t0": ["1e6", "1.0"],
             "weight_decay": ["0.1"], "maximize": ["True"]},
    "Adafactor": {"lr": ["0.01", "0.1"], "beta2_decay": ["-0.8", "-0.5"], "eps": ["(None, 1e-3)", "(1e-6, 0.0)"],
                  "d": ["1.0", "2.0"], "weight_decay": ["0.1"], "maximize": ["True"]},
    "Rprop": {"lr": ["0.01", "0.1"], "etas": ["(0.5, 1.2)", "(0.1, 2.0)"], "step_sizes": ["(1e-6, 50)", "(0.01, 0.05)"],
              "maximize": ["True"]},
}
INVALID = {"lr": "-0.1", "betas": "(1.5, 0.9)", "eps": "-1.0", "weight_decay": "-0.1", "momentum": "-0.5",
           "rho": "1.5", "alpha": "-0.1", "lr_decay": "-0.1", "dampening": "0.5", "initial_accumulator_value": "-1.0",
           "etas": "(1.5, 1.2)"}
FLOATS = ["float32", "float32", "float64", "float16", "bfloat16"]


def gen_optim(g):
    name = g.r.choice([n for n in SETTINGS if n in OPTIM_AVAILABLE])
    args = {k: g.r.choice(v) for k, v in SETTINGS[name].items() if g.chance(0.5)}
    if name == "SGD" and args.get("nesterov") and not g.bad:  # nesterov needs momentum and no dampening
        args.update(momentum="0.9", dampening="0.0")
    if g.bad:
        key = g.r.choice(sorted(set(INVALID) & set(SETTINGS[name])))
        args[key] = INVALID[key] if key != "dampening" else "0.5, nesterov=True, momentum=0.9"
    kwargs = "".join(f", {k}={v}" for k, v in args.items())
    source = g.operand(lambda u: u.is_floating_point(), dtype=g.r.choice(FLOATS), p_existing=0.7)
    grad = f"(_p.detach() * {g.r.choice(['0.7', '-1.3', '3.0'])} + 0.5).sin()"
    steps = []
    for _ in range(g.r.randint(1, 4)):
        steps.append("_p.grad = None" if g.chance(0.15) else f"_p.grad = {grad}")
        steps.append("_o.step()")
    if g.chance(0.3):  # the state goes through state_dict into a fresh optimizer, then one more step
        steps += [f"_s = _o.state_dict(); _o = m.optim.{name}([_p]{kwargs}); _o.load_state_dict(_s)",
                  f"_p.grad = {grad}", "_o.step()"]
    body = "; ".join(steps)
    return f"optim.{name}", (f"_p = m.nn.Parameter(({source}).detach().clone()); _o = m.optim.{name}([_p]{kwargs}); "
                             f"{body}; {{out}} = _p.detach()")


OPTIM_OPS = [("optim", gen_optim, 3)]  # (family, generator, weight), appended to gen.OPS

"""Issue 8, numerics: integer division edge cases, checked scalar conversions, precision, 0-dim and
empty reductions, and autograd details, each compared with torch over every dtype that applies."""
import math

import pytest
import torch

import ember
from conftest import assert_same, outcome

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
SIGNED = ["int8", "int16", "int32", "int64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def both(fn, **kw):
    """Runs fn(lib) on ember and torch: the same exception type and message, or the same tensor."""
    e, ee = outcome(lambda: fn(ember))
    t, te = outcome(lambda: fn(torch))
    assert (ee is None) == (te is None), (ee, te)
    if te is not None:
        assert type(ee).__name__ == type(te).__name__, (ee, te)
        assert str(ee) == str(te), (str(ee), str(te))
        return None, None
    if isinstance(t, torch.Tensor):
        assert_same(e, t, check_strides=False, **kw)
    else:
        assert e == t
    return e, t


def same_signs(e, t):  # signed zeros and infinities (NaN signs are not compared)
    sign = lambda x: [None if v != v else math.copysign(1, v) for v in x.double().tolist()]  # noqa: E731
    assert sign(e) == sign(t)


# 1. Integer division: INT_MIN // -1 and % -1 wrap or give 0 (no SIGFPE); division by zero raises.
@pytest.mark.parametrize("name", SIGNED)
@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod", "floordiv_op", "mod_op"])
@pytest.mark.parametrize("scalar", [False, True])
def test_int_min_by_minus_one(name, op, scalar):
    def run(L):
        dt = getattr(L, name)
        info = torch.iinfo(getattr(torch, name))
        a = L.tensor([info.min, info.max, 7, -7, 0], dtype=dt)
        b = -1 if scalar else L.full((5,), -1, dtype=dt)
        if op == "floordiv_op":
            return a // b
        if op == "mod_op":
            return a % b
        return getattr(L, op)(a, b)
    both(run)


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod"])
@pytest.mark.parametrize("scalar", [False, True])
def test_int_division_by_zero_raises(name, op, scalar):
    def run(L):
        dt = getattr(L, name)
        a = L.tensor([1, 2, 3], dtype=dt)
        return getattr(L, op)(a, 0 if scalar else L.tensor([1, 0, 1], dtype=dt))
    both(run)


@pytest.mark.parametrize("name", SIGNED)
def test_int_min_by_minus_one_in_place(name):
    def run(L):
        info = torch.iinfo(getattr(torch, name))
        a = L.tensor([info.min, 5], dtype=getattr(L, name))
        a //= -1
        a.remainder_(-1)
        return a
    both(run)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mode", ["trunc", "floor", None])
@pytest.mark.parametrize("scalar", [False, True])
def test_div_rounding_modes(name, mode, scalar):
    def run(L):
        dt = getattr(L, name)
        if name == "bool":
            a, b = L.tensor([True, False]), L.tensor([True, True])
        else:
            a = L.tensor([7, -7, 5, -5, 0, 9] if name != "uint8" else [7, 200, 5, 3, 0, 9], dtype=dt)
            b = L.tensor([2, 2, -3, -3, 4, -1] if name != "uint8" else [2, 3, 3, 5, 4, 1], dtype=dt)
            if name in FLOATS:
                a, b = a * 1.25, b
        return L.div(a, 2 if scalar else b, rounding_mode=mode)
    both(run)
    both(lambda L: L.div(L.ones(2, dtype=getattr(L, name)), 0, rounding_mode=mode))


@pytest.mark.parametrize("name", SIGNED)
def test_div_trunc_int_min_by_minus_one(name):
    # torch itself traps (SIGFPE) on int32/int64 here; Ember wraps as torch's int8/int16 and floor mode do.
    lo = torch.iinfo(getattr(torch, name)).min
    for L in (ember, torch) if name in ("int8", "int16") else (ember,):
        r = L.div(L.tensor([lo, 6], dtype=getattr(L, name)), -1, rounding_mode="trunc")
        assert r.tolist() == [lo, -6]
    both(lambda L: L.div(L.tensor([lo, 6], dtype=getattr(L, name)), -1, rounding_mode="floor"))


def test_div_rounding_mode_forms_and_gradient():
    both(lambda L: L.tensor([7, -7]).div_(2, rounding_mode="trunc"))
    both(lambda L: L.tensor([7.5, -7.5]).div(L.tensor(2.0), rounding_mode="floor"))
    both(lambda L: L.div(L.tensor([1]), 2, rounding_mode="round"))
    both(lambda L: L.divide(L.tensor([7, -7]), 2, rounding_mode="floor", out=L.empty(2, dtype=L.int64)))
    for mode in ("trunc", "floor"):
        grads = []
        for L in (ember, torch):
            x = L.tensor([-7.5, 7.5, 3.0], requires_grad=True)
            y = L.tensor([2.0, -2.0, 0.0], requires_grad=True)
            r = L.div(x, y, rounding_mode=mode)
            assert r.grad_fn.name() == "DivBackward2"
            r.sum().backward()
            grads.append((x.grad, y.grad))
        for e, t in zip(*grads):
            assert_same(e, t)


# 2. Numbers out of the result dtype's range raise (torch's checked_convert) where torch checks.
FILL_VALUES = [300, -129, -1, -255, -256, 2**31, 2**40, 2**63 - 1, 127.9, -0.5, 255.5, 65504.0, 65519.0, 1e6, 1e39,
               1e300, float("inf"), float("nan"), True]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", FILL_VALUES, ids=repr)
def test_fill_checks_range(name, value):
    both(lambda L: L.zeros(2, dtype=getattr(L, name)).fill_(value))
    both(lambda L: L.full((2,), value, dtype=getattr(L, name)))
    both(lambda L: L.full_like(L.zeros(2, dtype=getattr(L, name)), value))
    both(lambda L: L.zeros(2, dtype=getattr(L, name)).masked_fill(L.tensor([True, False]), value))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", [300, -1, -256, 2**40, 300.5, 1e6, 1e300, True], ids=repr)
def test_where_scalar_checks_range(name, value):
    cond = [True, False]
    both(lambda L: L.where(L.tensor(cond), L.zeros(2, dtype=getattr(L, name)), value))
    both(lambda L: L.where(L.tensor(cond), value, L.zeros(2, dtype=getattr(L, name))))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", [300, -1, 2**40, 300.5, 1e6, 1e300], ids=repr)
def test_binary_scalars_wrap_but_alpha_pow_clamp_check(name, value):
    dt = lambda L: getattr(L, name)  # noqa: E731
    both(lambda L: L.ones(2, dtype=dt(L)) + value)  # wraps, as torch
    both(lambda L: L.ones(2, dtype=dt(L)) * value)
    both(lambda L: L.ones(2, dtype=dt(L)).add(L.ones(2, dtype=dt(L)), alpha=value))
    both(lambda L: L.ones(2, dtype=dt(L)) ** value)
    both(lambda L: L.clamp(L.ones(2, dtype=dt(L)), max=value))
    both(lambda L: L.clamp(L.ones(2, dtype=dt(L)), min=-value))


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("values", [(1e6, 2e6, -1e6), (1e300, 1e300, -1e300), (0.5, None, None)], ids=str)
def test_nan_to_num_replacements_unchecked(name, values):
    nan, posinf, neginf = values
    both(lambda L: L.nan_to_num(L.tensor([float("nan"), float("inf"), -float("inf"), 1.0], dtype=getattr(L, name)),
                                nan=nan, posinf=posinf, neginf=neginf))


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("weight", [0.3, 0.7, 1e5, 1e300, -2.5], ids=repr)
def test_lerp_scalar_weight_in_opmath(name, weight):
    # float16/bfloat16 compute in float32 and round once; torch's float32/64 lerp fuses (fma): an ulp
    # of the operands apart.
    eps = torch.finfo(getattr(torch, name)).eps
    ulp = {} if name in ("float16", "bfloat16") else dict(rtol=2 * eps, atol=16 * eps)
    both(lambda L: L.tensor([1.0, 2.0, -3.1, 100.0], dtype=getattr(L, name)).lerp(
        L.tensor([1.0, 3.0, 7.7, -0.01], dtype=getattr(L, name)), weight), **ulp)
    both(lambda L: L.tensor([1.0, 2.0, -3.1], dtype=getattr(L, name)).lerp(
        L.tensor([1.0, 3.0, 7.7], dtype=getattr(L, name)), L.tensor([0.3, 0.6, 0.9], dtype=getattr(L, name))), **ulp)


# 3. Precision.
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("p", [2, 1, 3, float("inf"), 0])
def test_reduced_float_norm_accumulates_in_float32(name, p):
    both(lambda L: L.tensor([300.0] * 3, dtype=getattr(L, name)).norm(p=p))
    both(lambda L: L.tensor([[300.0, 2.0], [400.0, 1.0]], dtype=getattr(L, name)).norm(p=p, dim=0))


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("op", ["sum", "mean", "var", "std", "prod", "logsumexp", "cumsum", "cumprod"])
def test_reduced_float_intermediates(name, op):
    if op == "prod" and name in ("float16", "bfloat16"):
        pytest.skip("torch multiplies in the element type (300 * 300 is inf in float16); Ember in double")
    vals = [300.0, -300.0] + [0.0] * 100 if op in ("var", "std") else [30000.0, 30000.0, -30000.0]
    if op in ("prod", "cumprod"):
        vals = [300.0, 300.0, 1 / 300]

    def run(L):
        x = L.tensor(vals, dtype=getattr(L, name))
        return getattr(x, op)(0) if op in ("logsumexp", "cumsum", "cumprod") else getattr(x, op)()
    both(run, rtol=1e-2 if name in ("float16", "bfloat16") else 1e-6)


@pytest.mark.parametrize("n", [1, 2, 5, 15, 16, 17, 40])
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_randn_matches_torch_seed(n, name):
    if name == "float32" and n >= 16:
        pytest.skip("torch's AVX2 Box-Muller for float differs from Ember's in the last bit")
    def run(L):
        L.manual_seed(0)
        return L.randn(n, dtype=getattr(L, name))
    both(run)


SPECIAL_EXPS = (0.5, -0.5, -1, 2, 3, -2, 0, 1)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("exp", [0.5, -0.5, -1, 2, 3, -2, 1.5, 0, 1, 1 / 3, -3, float("inf"), -float("inf"),
                                 float("nan")], ids=repr)
def test_pow_scalar_special_cases(name, exp):
    base = [0.0, -0.0, 2.0, -2.0, 0.5, -0.5, 1.0, -1.0, 3.7, -8.0, float("inf"), -float("inf"), float("nan")]
    # torch's general pow is Sleef's (within 1 ulp of std::pow); its special exponents are exact.
    ulp = dict(rtol=2 * torch.finfo(getattr(torch, name)).eps, atol=0)
    e, t = both(lambda L: L.tensor(base, dtype=getattr(L, name)) ** exp, **({} if exp in SPECIAL_EXPS else ulp))
    same_signs(e, t)
    e, t = both(lambda L: L.pow(L.tensor(base, dtype=getattr(L, name)), L.tensor(exp, dtype=getattr(L, name))), **ulp)
    same_signs(e, t)


def test_pow_sqrt_of_negative_zero():
    e, t = both(lambda L: L.pow(L.tensor(-0.0), 0.5))
    assert math.copysign(1, e.item()) == -1 == math.copysign(1, t.item())


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("exp", [-1, -2, 0, 1, 2, 7], ids=repr)
def test_int_pow(name, exp):
    both(lambda L: L.tensor([0, 1, 2, 3, 5], dtype=getattr(L, name)) ** exp)
    signed = name != "uint8"
    both(lambda L: L.tensor([1, 2, 0, 3], dtype=getattr(L, name)).pow(
        L.tensor([exp, -exp if signed else exp, 1, 2], dtype=getattr(L, name))))


# 4. Reductions on 0-dim and empty inputs: values, dtypes, shapes and exception types.
def _reductions():
    red = lambda f: (lambda L, x, d, k: f(L, x) if d is None else f(L, x, d, k))  # noqa: E731
    return {
        "sum": red(lambda L, x, *a: L.sum(x, *a)),
        "mean": red(lambda L, x, *a: L.mean(x, *a)),
        "prod": red(lambda L, x, *a: L.prod(x, a[0], keepdim=a[1]) if a else L.prod(x)),
        "amax": red(lambda L, x, *a: L.amax(x, *a)),
        "amin": red(lambda L, x, *a: L.amin(x, *a)),
        "max": red(lambda L, x, *a: L.max(x, *a)[0] if a else L.max(x)),
        "min": red(lambda L, x, *a: L.min(x, *a)[1] if a else L.min(x)),
        "argmax": red(lambda L, x, *a: L.argmax(x, *a)),
        "argmin": red(lambda L, x, *a: L.argmin(x, *a)),
        "all": red(lambda L, x, *a: L.all(x, *a)),
        "any": red(lambda L, x, *a: L.any(x, *a)),
        "var": red(lambda L, x, *a: L.var(x, *a)),
        "std": red(lambda L, x, *a: L.std(x, *a)),
        "norm": red(lambda L, x, *a: x.norm(dim=a[0], keepdim=a[1]) if a else x.norm()),
        "count_nonzero": red(lambda L, x, *a: L.count_nonzero(x, a[0]) if a else L.count_nonzero(x)),
        "logsumexp": lambda L, x, d, k: L.logsumexp(x, 0 if d is None else d, keepdim=k),
        "cumsum": lambda L, x, d, k: L.cumsum(x, 0 if d is None else d),
        "cumprod": lambda L, x, d, k: L.cumprod(x, 0 if d is None else d),
        "softmax": lambda L, x, d, k: L.softmax(x, 0 if d is None else d),
        "log_softmax": lambda L, x, d, k: L.log_softmax(x, 0 if d is None else d),
        "softmax_dtype": lambda L, x, d, k: L.softmax(x, 0 if d is None else d, dtype=L.float64),
        "log_softmax_dtype": lambda L, x, d, k: L.log_softmax(x, 0 if d is None else d, dtype=L.float32),
        "cumsum_dtype": lambda L, x, d, k: L.cumsum(x, 0 if d is None else d, dtype=L.float16),
    }


REDUCTIONS = _reductions()


@pytest.mark.parametrize("op", list(REDUCTIONS))
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(), (0,), (2, 0), (0, 3)], ids=str)
def test_reduction_0dim_and_empty(op, name, shape):
    f = REDUCTIONS[op]
    for d in [None, 0, -1, 1]:
        for keepdim in [False, True]:
            def run(L):
                dt = getattr(L, name)
                x = L.tensor(True if name == "bool" else 3, dtype=dt) if shape == () else L.zeros(shape, dtype=dt)
                return f(L, x, d, keepdim)
            e, ee = outcome(lambda: run(ember))
            t, te = outcome(lambda: run(torch))
            assert (ee is None) == (te is None), (d, keepdim, ee, te)
            if te is not None:
                assert type(ee) is type(te), (d, keepdim, ee, te)
            else:
                assert_same(e, t, check_strides=False, rtol=1e-3, atol=1e-3)


def test_cumsum_0dim_example():
    both(lambda L: L.cumsum(L.tensor(5.0), 0))
    both(lambda L: L.cumprod(L.tensor(5.0), -1))
    both(lambda L: L.softmax(L.tensor(5, dtype=L.int32), 0, dtype=L.float32))


# 5. Autograd.
@pytest.mark.parametrize("method", ["clamp_", "clip_"])
def test_clamp_in_place_on_graph_tensor(method):
    grads = []
    for L in (ember, torch):
        x = L.tensor([1.0, 2.0, -3.0], requires_grad=True)
        y = x * 2
        getattr(y, method)(-1.0, 3.0)
        assert y.grad_fn.name() == "ClampBackward1"
        (y * y).sum().backward()
        grads.append(x.grad)
    assert_same(grads[0], grads[1])


def test_clamp_in_place_after_saving_op_still_raises():
    for L in (ember, torch):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.clamp_(max=3.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("value_dtype", ["float32", "float64"])
def test_masked_fill_value_tensor_gradient(in_place, value_dtype):
    res = []
    for L in (ember, torch):
        x = L.tensor([0.0, 1.0, 2.0], requires_grad=True)
        v = L.tensor(2.0, dtype=getattr(L, value_dtype), requires_grad=True)
        m = L.tensor([True, False, True])
        if in_place:
            r = x * 1
            r.masked_fill_(m, v)
        else:
            r = x.masked_fill(m, v)
        assert r.grad_fn.name() == "MaskedFillBackward1"
        r.backward(L.tensor([1.0, 2.0, 3.0]))
        res.append((r, x.grad, v.grad))
    for e, t in zip(*res):
        assert_same(e.detach(), t.detach())


def test_atan2_gradient_at_origin():
    res = []
    for L in (ember, torch):
        a = L.tensor([0.0, 1.0, 0.0, 1e-20], requires_grad=True)
        b = L.tensor([0.0, 0.0, 1e-30, 0.0], requires_grad=True)
        L.atan2(a, b).sum().backward()
        res.append((a.grad, b.grad))
    for e, t in zip(*res):
        assert_same(e, t)


@pytest.mark.parametrize("fn", ["max", "min"])
def test_max_min_record_backward1(fn):
    res = []
    for L in (ember, torch):
        x = L.tensor([1.0, 3.0, 3.0, -2.0, -2.0], requires_grad=True)
        r = getattr(x, fn)()
        r2 = getattr(L, fn)(x)
        assert r.grad_fn.name() == r2.grad_fn.name() == fn.capitalize() + "Backward1"
        r.backward()
        res.append(x.grad)
    assert_same(res[0], res[1])


VERSION_CASES = {
    "zeros": lambda L: L.zeros(3), "ones": lambda L: L.ones(3), "tensor": lambda L: L.tensor([1.0]),
    "arange": lambda L: L.arange(3), "empty": lambda L: L.empty(2), "full": lambda L: L.full((2,), 1.0),
    "randn": lambda L: L.randn(2), "rand": lambda L: L.rand(2), "randint": lambda L: L.randint(0, 3, (2,)),
    "eye": lambda L: L.eye(2), "linspace": lambda L: L.linspace(0, 1, 3),
    "zeros_like": lambda L: L.zeros_like(L.ones(1)), "ones_like": lambda L: L.ones_like(L.ones(1)),
    "full_like": lambda L: L.full_like(L.ones(1), 2), "rand_like": lambda L: L.rand_like(L.ones(1)),
    "randn_like": lambda L: L.randn_like(L.ones(1)), "new_zeros": lambda L: L.ones(1).new_zeros(2),
    "new_ones": lambda L: L.ones(1).new_ones(2), "new_full": lambda L: L.ones(1).new_full((2,), 3),
    "clone": lambda L: L.zeros(2).clone(), "add": lambda L: L.ones(2) + 1, "to": lambda L: L.ones(2).to(L.int32),
    "sum": lambda L: L.ones(2).sum(), "cumsum": lambda L: L.ones(2).cumsum(0), "norm": lambda L: L.ones(2).norm(),
    "add_": lambda L: L.zeros(3).add_(1), "zero_": lambda L: L.ones(3).zero_(), "fill_": lambda L: L.ones(3).fill_(2),
    "normal_": lambda L: L.ones(3).normal_(), "uniform_": lambda L: L.ones(3).uniform_(),
    "uniform_t": lambda L: L.ones(3, 2).t().uniform_(), "random_": lambda L: L.ones(3).random_(0, 5),
}


@pytest.mark.parametrize("case", list(VERSION_CASES))
def test_version_counter_starts_as_torch(case):
    assert VERSION_CASES[case](ember)._version == VERSION_CASES[case](torch)._version


def test_version_shared_with_views():
    res = []
    for L in (ember, torch):
        x = L.zeros(3)
        x.add_(1)
        v = x[1:]
        v.mul_(2)
        x[0] = 1
        res.append((x._version, v._version))
    assert res[0] == res[1]


@pytest.mark.parametrize("mask_shape,self_shape", [((1, 3), (3,)), ((3,), (2, 3)), ((2, 1), (2, 3))])
def test_masked_fill_value_tensor_gradient_broadcast(mask_shape, self_shape):
    # The mask and self broadcast together; each gradient is summed back to its input's shape.
    res = []
    for L in (ember, torch):
        x = L.arange(float(math.prod(self_shape))).reshape(self_shape).requires_grad_()
        v = L.tensor(2.0, requires_grad=True)
        m = (L.arange(math.prod(mask_shape)).reshape(mask_shape) % 2) == 0
        r = x.masked_fill(m, v)
        (r * L.arange(float(r.numel())).reshape(r.shape)).sum().backward()
        res.append((r, x.grad, v.grad))
    for e, t in zip(*res):
        assert_same(e.detach(), t.detach())

"""Issue 8, bugs the differential fuzzer found outside the other areas: requires_grad of non-differentiable
results, out= of comparisons under autograd, result layouts of composite elementwise ops, integer linspace,
random streams of half-precision dtypes and *_like layouts, clamp promotion with 0-dim bounds, argument
checks (squeeze, alpha, arange/cumprod of bool, lerp dtypes, gather of an empty index), fmin/fmax gradients.
Each case runs the same call on ember and torch."""
import pytest
import torch

import ember
from conftest import assert_same, outcome

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def both(fn, strides=True, message=True):
    """Runs fn(lib) on ember and torch: the same exception type (and message), or the same tensor."""
    e, ee = outcome(lambda: fn(ember))
    t, te = outcome(lambda: fn(torch))
    assert (ee is None) == (te is None), (ee, te)
    if te is not None:
        assert type(ee).__name__ == type(te).__name__, (ee, te)
        if message:
            assert str(ee) == str(te), (str(ee), str(te))
        return None, None
    if isinstance(t, torch.Tensor):
        assert e.requires_grad == t.requires_grad
        assert_same(e.detach(), t.detach(), check_strides=strides)
    else:
        assert e == t
    return e, t


# --- autograd: integer and bool results are never differentiable ---

@pytest.mark.parametrize("name", INTS + ["bool"])
def test_integer_conversion_drops_requires_grad(name):
    both(lambda m: m.tensor([1.5, -2.0], requires_grad=True).to(getattr(m, name)))
    both(lambda m: (m.tensor([1.5, -2.0], requires_grad=True) * 2).to(getattr(m, name)))


def test_integer_shorthand_conversions():
    both(lambda m: m.tensor([1.5], requires_grad=True).long())
    both(lambda m: m.tensor([1.5], requires_grad=True).bool())
    both(lambda m: m.tensor([1.5], requires_grad=True).double())


@pytest.mark.parametrize("op", ["sum", "prod", "cumsum", "cumprod"])
@pytest.mark.parametrize("name", ["int8", "int64"])
def test_integer_reduction_of_grad_tensor_raises(op, name):
    def fn(m):
        x = m.tensor([1.5, 2.0], requires_grad=True)
        args = (0,) if op.startswith("cum") else ()
        return getattr(x, op)(*args, dtype=getattr(m, name))
    both(fn)


@pytest.mark.parametrize("op", ["eq_", "ne_", "lt_", "le_", "gt_", "ge_"])
def test_in_place_comparison_on_graph_tensor(op):
    def fn(m, other):
        a = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        b = a * 2
        r = getattr(b, op)(other(m))
        r.sum().backward()
        return r, a.grad
    for other in (lambda m: 0, lambda m: m.tensor([1.0, -4.0, 6.0])):
        (er, eg), (tr, tg) = fn(ember, other), fn(torch, other)
        assert_same(er.detach(), tr.detach())
        assert er.requires_grad and tr.requires_grad
        assert er.grad_fn.name() == tr.grad_fn.name()
        assert_same(eg, tg)


def test_in_place_logical_keeps_history():
    def fn(m):
        a = m.tensor([1.0, 0.0], requires_grad=True)
        r = (a * 2).logical_and_(a)
        return r
    e, t = both(fn)
    assert e.grad_fn.name() == t.grad_fn.name()


# --- out= of a non-differentiable result with a grad-requiring input ---

@pytest.mark.parametrize("op", ["gt", "eq", "logical_and", "logical_xor"])
def test_out_of_non_differentiable_op_under_autograd(op):
    def fn(m, dtype):
        a = m.tensor([1.5, -2.0], requires_grad=True)
        out = m.zeros(0, dtype=getattr(m, dtype))
        r = getattr(m, op)(a, m.tensor([0.0, -2.0]), out=out)
        assert r is out
        return out
    both(lambda m: fn(m, "bool"))
    both(lambda m: fn(m, "float32"))


def test_out_of_differentiable_op_still_refused():
    both(lambda m: m.add(m.tensor([1.0], requires_grad=True), 1, out=m.zeros(1)))


# --- layouts: composites follow TensorIterator's rule ---

LAYOUT_CASES = {
    "where": lambda m: m.tensor([[-4, -2], [-6, 4], [1, 3]], dtype=m.int16).permute(1, 0).where(
        m.tensor([[[False, True, False]]]).expand(1, 1, 3), True),
    "where_t": lambda m: m.where(m.zeros(3, 2).t() > 0, m.zeros(3, 2).t(), 1.0),
    "lerp": lambda m: m.lerp(m.zeros(2, 3, 2).transpose(1, 2), m.zeros(2, 3, 2).transpose(1, 2), 4),
    "nan_to_num": lambda m: m.nan_to_num(m.zeros(3, 2, 1, 5).permute(3, 2, 1, 0)),
    "isnan_int": lambda m: m.isnan(m.arange(15).as_strided((3, 3), (2, 5))),
    "isinf_int": lambda m: m.isinf(m.arange(6).reshape(2, 3).t()),
    "isfinite_int": lambda m: m.isfinite(m.arange(6).reshape(2, 3).t()),
    "clamp": lambda m: m.clamp(m.arange(6.).reshape(2, 3).t(), 1, 3),
    "masked_fill": lambda m: m.arange(6.).reshape(2, 3).t().masked_fill(m.tensor([True, False]), 0.5),
}


@pytest.mark.parametrize("case", sorted(LAYOUT_CASES))
def test_composite_layout(case):
    both(LAYOUT_CASES[case])


# --- linspace with an integer dtype ---

@pytest.mark.parametrize("args", [(-1.25, 2, 4, "int64"), (-2, 5, 3, "uint8"), (0, 10, 7, "int16"),
                                  (3.7, -8.2, 6, "int32"), (-1.5, 1.5, 5, "int8")])
def test_linspace_integer(args):
    start, end, steps, name = args
    both(lambda m: m.linspace(start, end, steps, dtype=getattr(m, name)))


# --- random streams ---

@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 16), (64,)])
def test_randn_half_precision_stream(name, shape):
    def fn(m):
        m.manual_seed(67)
        return m.randn(*shape, dtype=getattr(m, name))
    both(fn)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_rand_half_precision_below_one(name):
    def fn(m):
        m.manual_seed(67)
        return m.rand(2, 1, 4, 4, dtype=getattr(m, name))
    both(fn)
    ember.manual_seed(0)
    assert ember.rand(100000, dtype=getattr(ember, name)).max().item() < 1


@pytest.mark.parametrize("op", ["rand_like", "randn_like"])
@pytest.mark.parametrize("make", [lambda m: m.zeros(3, 2).t(), lambda m: m.zeros(2, 3, 4).permute(2, 0, 1),
                                  lambda m: m.zeros(4, 6)[:, ::2], lambda m: m.zeros(6, 4).t()[:, 1:]])
def test_random_like_keeps_layout_and_order(op, make):
    def fn(m):
        m.manual_seed(0)
        return getattr(m, op)(make(m))
    both(fn)


# --- clamp with a 0-dim tensor bound and a number bound ---

def test_clamp_zero_dim_tensor_bound_with_number():
    both(lambda m: m.clip(m.tensor([1, -3], dtype=m.int16), m.tensor(-1.0, dtype=m.float16), 0))
    both(lambda m: m.clamp(m.tensor([1, -3], dtype=m.int16), 0, m.tensor(-1.0, dtype=m.float16)))
    both(lambda m: m.clamp(m.tensor([1, -3], dtype=m.int16), m.tensor(-1.0, dtype=m.float16)))
    both(lambda m: m.clamp(m.tensor([1, -3], dtype=m.int16), m.tensor(-1.0, dtype=m.float16), m.tensor(0)))
    both(lambda m: m.clamp(m.zeros(2), m.zeros(2), 1), message=False)
    both(lambda m: m.zeros(2).clamp(0, m.tensor(1., requires_grad=True)), message=False)


# --- argument checks ---

def test_squeeze_repeated_dim():
    both(lambda m: m.zeros(2, 1, 1).squeeze((-1, 2)))
    both(lambda m: m.zeros(2, 1, 1).squeeze((-1, 1)))
    both(lambda m: m.zeros(()).squeeze((0, -1)))


@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("name", ["float32", "int64", "bool"])
def test_boolean_alpha(op, name):
    both(lambda m: getattr(m, op)(m.ones(2, dtype=getattr(m, name)), m.ones(2, dtype=getattr(m, name)), alpha=True))


def test_arange_and_scans_of_bool():
    both(lambda m: m.arange(3, dtype=m.bool))
    both(lambda m: m.ones(2).cumprod(0, dtype=m.bool))
    both(lambda m: m.ones(2).cumsum(0, dtype=m.bool))
    both(lambda m: m.tensor([True, False]).cumprod(0))


@pytest.mark.parametrize("end", ["uint8", "float32", "float16"])
def test_lerp_dtype_mismatch(end):
    both(lambda m: m.lerp(m.zeros(2, dtype=m.float64), m.tensor(1, dtype=getattr(m, end)), 4.0))


def test_lerp_weight_dtype_and_int_inputs():
    both(lambda m: m.lerp(m.zeros(2), m.zeros(2), m.zeros(2, dtype=m.int32)))
    both(lambda m: m.lerp(m.zeros(2, dtype=m.int32), m.zeros(2, dtype=m.int32), 0.5))
    both(lambda m: m.lerp(m.zeros(2, dtype=m.int32), m.zeros(2, dtype=m.int32), m.zeros(2, dtype=m.int32)))


@pytest.mark.parametrize("index", [lambda m: m.tensor([], dtype=m.int64), lambda m: m.tensor([]),
                                   lambda m: m.zeros(0, 2, 2, dtype=m.int64), lambda m: m.zeros(2, 0, dtype=m.int32)])
def test_gather_empty_index(index):
    both(lambda m: m.arange(6.).reshape(2, 3).gather(1, index(m)))
    both(lambda m: m.arange(6.).reshape(2, 3).gather(5, index(m)), message=False)


def test_gather_empty_index_requires_grad():
    def fn(m):
        x = m.arange(6.).reshape(2, 3).requires_grad_()
        r = x.gather(1, m.zeros(0, 3, dtype=m.int64))
        r.sum().backward()
        return x.grad
    both(fn)


# --- fmin/fmax: ties and NaNs give the gradient to self ---

@pytest.mark.parametrize("op", ["fmin", "fmax"])
def test_fmin_fmax_gradient(op):
    nan = float("nan")

    def fn(m):
        x = m.tensor([-2., 1., 3., nan, 2.], requires_grad=True)
        y = m.tensor([-2., 2., nan, 1., nan], requires_grad=True)
        getattr(m, op)(x, y).sum().backward()
        return m.stack([x.grad, y.grad])
    both(fn)


# --- Python argument forms: std/var(True) is unbiased, max/min(tensor) is maximum/minimum ---

@pytest.mark.parametrize("op", ["std", "var"])
@pytest.mark.parametrize("unbiased", [True, False])
def test_std_var_bool_positional_is_unbiased(op, unbiased):
    both(lambda m: getattr(m.arange(6.).reshape(2, 3), op)(unbiased))
    both(lambda m: getattr(m, op + "_mean")(m.arange(6.).reshape(2, 3), unbiased)[0])


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_of_tensor_is_elementwise(op):
    both(lambda m: getattr(m.arange(6.).reshape(2, 3), op)(m.tensor(2.)))
    both(lambda m: getattr(m, op)(m.arange(6.).reshape(2, 3), m.tensor([1., 5., 0.])))


# --- empty matmul operands, masked_fill broadcasting, index_put_ with None, size overflow ---

def test_matmul_family_empty_operands():
    both(lambda m: m.addmv(m.ones(3, dtype=m.int32), m.zeros(3, 0, dtype=m.int32), m.zeros(0, dtype=m.int32)))
    both(lambda m: m.addmm(m.ones(3, 2, dtype=m.int32), m.zeros(3, 0, dtype=m.int32), m.zeros(0, 2, dtype=m.int32),
                           beta=2))
    both(lambda m: m.matmul(m.zeros(1, 0, dtype=m.int64), m.zeros(1, 1, 2, 0, dtype=m.int64).transpose(-1, -2)))
    both(lambda m: m.matmul(m.zeros(2, 3, 0), m.zeros(0, 4)))
    both(lambda m: m.matmul(m.zeros(2, 3, 0), m.zeros(0)))


def test_masked_fill_mask_of_more_dims():
    both(lambda m: m.masked_fill(m.zeros(2), m.tensor([[True, False]]), 1.))


def test_index_put_none_index():
    both(lambda m: m.arange(6.).reshape(2, 3).index_put_((None,), m.tensor(1.)), message=False)


def test_size_overflow_is_a_type_error():
    for size in (2**63, -2**63 - 1):
        e, t = outcome(lambda: ember.zeros(2).view(size)), outcome(lambda: torch.zeros(2).view(size))
        assert type(e[1]) is type(t[1]) is TypeError


# --- found by the fuzzer after the fixes above ---

def test_scans_of_bool_on_0_dim_and_empty():
    both(lambda m: m.cumsum(m.tensor(-1.15), -1, dtype=m.bool))
    both(lambda m: m.zeros(0, 3).cumprod(0, dtype=m.bool))


def test_non_differentiable_in_place_on_leaf_and_out_of_floor_divide():
    def fn(m):
        x = m.tensor(0., dtype=m.float64, requires_grad=True)
        return x.logical_or_(m.tensor(1.52, dtype=m.bfloat16))
    both(fn)
    both(lambda m: m.floor_divide(m.ones(2, requires_grad=True), 2, out=m.zeros(2)))
    both(lambda m: m.tensor([1.5], dtype=m.float64, requires_grad=True).bitwise_and_(m.tensor(False)))


def test_log_softmax_integer_dtype_of_grad_tensor():
    both(lambda m: m.zeros(1, 0, requires_grad=True).log_softmax(-2, dtype=m.int32))
    both(lambda m: m.zeros(2, requires_grad=True).log_softmax(0, dtype=m.int32), message=False)


@pytest.mark.parametrize("name", ["int64", "bool", "uint8"])
def test_random_fills_of_integer_dtypes(name):
    both(lambda m: m.randn_like(m.zeros(2, dtype=getattr(m, name))))
    both(lambda m: m.rand_like(m.zeros(2, dtype=getattr(m, name))))
    both(lambda m: m.zeros(0, dtype=getattr(m, name)).uniform_())
    both(lambda m: m.randn_like(m.zeros(1, 0, dtype=getattr(m, name))))


@pytest.mark.parametrize("dim", [0, -1, 1])
def test_unbind_of_0_dim(dim):
    both(lambda m: m.tensor(1.).unbind(dim))


@pytest.mark.parametrize("shapes", [((2, 2, 2), (2, 2)), ((2, 2), (2, 2, 2)), ((2, 2), (2, 2)), ((2, 2, 2), (2,)),
                                    ((2, 2, 2, 2), (2, 2, 2))])
def test_baddbmm_rank_errors(shapes):
    both(lambda m: m.baddbmm(m.zeros(2, 2, 2), m.zeros(*shapes[0]), m.zeros(*shapes[1])))


@pytest.mark.parametrize("p", [0.5, 0.3])
def test_norm_below_one_gradient_at_zero(p):
    # |x|^(p-1) is infinite at 0; torch's gradient is 0 there (found by the differential tester).
    grads = []
    for L in (ember, torch):
        x = L.tensor([[-2.72, 0.0, 1.56], [3.0, -0.84, 3.75]], requires_grad=True)
        L.norm(x, p=p, dim=(1,), keepdim=True).sum().backward()
        grads.append(x.grad)
    torch.testing.assert_close(torch.from_numpy(grads[0].numpy()), grads[1])


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("bounds", [("t", -6, "n", 2.91), ("t", -6, "n", 3), ("t", 300, None, None),
                                    ("n", -6.5, "t", 5), ("t", -6, "t", 2.5), (None, None, "t", -3)])
def test_clamp_casts_all_to_the_result_dtype(name, bounds):
    # The 0-dim int32 bound -6 beside a float number bound is -6 in the float result, not uint8 250.
    def bound(m, kind, v):
        return None if kind is None else m.tensor(v, dtype=m.int32 if isinstance(v, int) else m.float32) \
            if kind == "t" else v
    both(lambda m: m.tensor([11, 12, 4, 2, 3, 0, 127], dtype=getattr(m, name)).clip(
        bound(m, *bounds[:2]), bound(m, *bounds[2:])))


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "sum", "prod"])
@pytest.mark.parametrize("values", [-0.65, [0.3], [-0.65, 0.2]])
def test_reductions_to_bool_of_floats(op, values):
    # float -> bool is x != 0 before the scan (cos(4) = -0.65 summed to bool is True).
    args = (0,) if op.startswith("cum") else ()
    both(lambda m: getattr(m, op)(m.tensor(values), *args, dtype=m.bool))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["int32", "int16", "uint8", "int64"])
def test_scans_cast_the_input_to_dtype_first(op, dtype):
    # -inf/nan cast straight to int32 (INT_MIN), not through int64; overflow wraps in the dtype.
    x = [[0, float("-inf"), 2.5], [float("nan"), 2.0, -3.0], [70000.0, 70000.0, 3.0], [2.0, 1e10, 3.0]]
    both(lambda m: getattr(m, op)(m.tensor(x, dtype=m.float64), 0, dtype=getattr(m, dtype)))
    both(lambda m: getattr(m, op)(m.tensor([2**31 - 1, 5, 2**31 - 1], dtype=m.int64), 0, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_scans_accumulate_in_float(dtype):
    # torch scans float16/bfloat16 in a float accumulator: 2048 + 1e-4 - 2048 is 0 there, not 1e-4.
    both(lambda m: m.cumsum(m.tensor([2048.0, 1e-4, -2048.0], dtype=m.float64), 0, dtype=getattr(m, dtype)))
    both(lambda m: m.cumsum(m.tensor([2048.0, 1e-4, -2048.0], dtype=getattr(m, dtype)), 0))


@pytest.mark.parametrize("op", ["sum", "prod"])
@pytest.mark.parametrize("dtype", ["int32", "int16", "uint8"])
def test_integer_reductions_to_a_narrower_dtype_wrap(op, dtype):
    both(lambda m: getattr(m, op)(m.tensor([2**31 - 1, 70000, 3, float("inf")], dtype=m.float64), dtype=getattr(m, dtype)))
    both(lambda m: getattr(m, op)(m.tensor([2**31 - 1, 70000, 3], dtype=m.int64), dtype=getattr(m, dtype)))


@pytest.mark.parametrize("name", INTS + ["bool"])
def test_clamp_in_place_cast_error_names_the_cpp_type(name):
    both(lambda m: m.tensor([1], dtype=getattr(m, name)).clamp_(m.tensor(-6, dtype=m.int32), 2.5))

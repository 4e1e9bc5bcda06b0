"""Regressions for issue 8's remaining differential-fuzzer findings (session 10), each against torch 2.13."""
import ast
import math
import os
import sys
import warnings

import pytest
import torch

import ember
from conftest import assert_same

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz"))
import runner  # noqa: E402


def both(fn):
    return fn(ember), fn(torch)


def outcome(fn, m):
    """fn(m)'s result, or its exception type."""
    try:
        return fn(m)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)


# ---- var/std backward with N - correction <= 0

@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("correction", [2, 3, 4, 5])
@pytest.mark.parametrize("kw", [{}, {"dim": 0}, {"dim": (0, 1)}, {"dim": 1, "keepdim": True}])
@pytest.mark.parametrize("values", [[1.0, 2.0, 4.0], [2.0, 2.0, 2.0]])
def test_var_std_backward_without_degrees_of_freedom(fn, correction, kw, values):
    # torch: 2 / (N - correction) unclamped over given dims; with no dims, inf (nan where x is its mean)
    def grad(m):
        x = m.tensor(values).view(3, 1).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = getattr(m, fn)(x, correction=correction, **kw)
        (y[0] if isinstance(y, tuple) else y).sum().mul(-2).backward()
        return x.grad
    e, t = both(grad)
    assert_same(e.abs(), t.abs(), rtol=1e-6)  # (var_mean: torch's -0 where the mean's gradient adds +0 here)


# ---- huber_loss backward with mixed dtypes

@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"), ("float16", "float32")])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_huber_loss_backward_refuses_mixed_dtypes(dtypes, reduction):
    def fn(m):
        x = m.ones(3, dtype=getattr(m, dtypes[0]), requires_grad=True)
        y = m.nn.functional.huber_loss(x, m.zeros(3, dtype=getattr(m, dtypes[1])), reduction=reduction)
        y.sum().backward()
    legacy = {"float64": "Double", "float32": "Float", "float16": "Half"}
    with pytest.raises(RuntimeError, match=f"Found dtype {legacy[dtypes[1]]} but expected {legacy[dtypes[0]]}"):
        fn(ember)
    with pytest.raises(RuntimeError):
        fn(torch)


def test_smooth_l1_backward_takes_mixed_dtypes():
    def fn(m):
        x = m.tensor([0.5, 3.0], dtype=m.float64, requires_grad=True)
        m.nn.functional.smooth_l1_loss(x, m.zeros(2)).backward()
        return x.grad
    assert_same(*both(fn))


# ---- in-place unary ops save their target: a later in-place change of it fails backward

@pytest.mark.parametrize("op", ["exp_", "tanh_", "sigmoid_", "sqrt_", "rsqrt_"])
@pytest.mark.parametrize("through_view", [False, True])
def test_in_place_unary_result_is_version_checked(op, through_view):
    def fn(m):
        a = m.tensor([0.5, 1.5, 2.0], requires_grad=True)
        x = a.clone()
        y = x[1:] if through_view else x
        getattr(y, op)()
        y.add_(1)
        x.sum().backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        fn(ember)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        fn(torch)


def test_in_place_unary_result_unchanged_gives_the_gradient():
    def fn(m):
        a = m.tensor([0.5, 1.5, 2.0], requires_grad=True)
        x = a.clone()
        x.mul_(2).exp_()
        x.sum().backward()
        return a.grad
    assert_same(*both(fn))


# ---- an int tensor filled in place from a float that requires grad

@pytest.mark.parametrize("fill", ["masked_fill_", "fill_", "index_fill_"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_in_place_fill_of_an_int_tensor_from_a_graph_value(fill, dtype):
    # torch rebases the int tensor's history unchecked: it requires grad, and the next in-place op records too;
    # an out-of-place op on it then raises
    def fn(m):
        f = m.tensor([-1.0, 3.0], requires_grad=True)
        x = m.tensor([0, 1, 1], dtype=getattr(m, dtype))
        args = {"masked_fill_": (m.tensor([True, False, True]), f[0]), "fill_": (f[0],),
                "index_fill_": (0, m.tensor([1]), f[0])}[fill]
        getattr(x, fill)(*args)
        names = [x.grad_fn.name()]
        x.masked_fill_(m.tensor([False, True, False]), 0)
        names.append(x.grad_fn.name())
        return x.detach(), x.requires_grad, names, outcome(lambda m: x * 2, m), x.float().grad_fn.name()
    e, t = both(fn)
    assert_same(e[0], t[0])
    assert e[1:] == t[1:]


# ---- fuzz reproducers are valid Python whatever the message

def test_reproducer_scripts_escape_their_message(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "FOUND", str(tmp_path))
    program = [{"src": "r = m.tensor([1.0])", "out": "r", "op": "tensor"}]
    message = 'bad escape \\x and \\N{ and """ and \x00 and \u00e9: "quoted"\\'
    fail = runner.Failure("value", 7, program, 0, message)
    path = runner.write_reproducer(fail, 0)
    tree = ast.parse(open(path, encoding="utf-8").read())
    assert message in ast.get_docstring(tree)


# ---- setitem through a slice that is whole only after wrapping, and matmul's node names

@pytest.mark.parametrize("index", [slice(-3, None), slice(-100, None), slice(0, 3), slice(0, 100), slice(None),
                                   slice(1, None)])
@pytest.mark.parametrize("size", [3, 0])
def test_setitem_slice_is_self_only_as_written(index, size):
    # torch skips a slice starting at 0 with step 1 that reaches the end (FillBackward3); x[-3:] is a view
    def fn(m):
        x = m.zeros(size, requires_grad=True).clone()
        x[index] = m.tensor(-1.0)
        return x.grad_fn.name()
    assert fn(ember) == fn(torch)


@pytest.mark.parametrize("shapes", [((4,), (4, 3)), ((1,), (1, 4)), ((2, 3, 4), (4, 3)), ((2, 3, 4), (4,)),
                                    ((5, 2, 3, 4), (5, 2, 4, 3)), ((4,), (2, 4, 3)), ((2, 3, 4), (1, 4, 5))])
def test_matmul_node_names(shapes):
    def fn(m):
        a = m.ones(shapes[0], requires_grad=True)
        r = m.matmul(a, m.ones(shapes[1]))
        r.sum().backward()
        return r.grad_fn.name(), r.detach(), a.grad
    e, t = both(fn)
    assert e[0] == t[0]
    assert_same(e[1], t[1])
    assert_same(e[2], t[2])


# ---- pow saves its result whichever input needs a gradient

@pytest.mark.parametrize("exponent", ["int16", "float32", "0-dim"])
def test_pow_result_modified_in_place_fails_backward(exponent):
    def fn(m):
        a = m.tensor([0.5, 1.5, 2.0], requires_grad=True)
        e = {"int16": m.tensor([1, 2, 3], dtype=m.int16), "float32": m.tensor([1.0, 2.0, 3.0]),
             "0-dim": m.tensor(2.0)}[exponent]
        r = a ** e
        r.mul_(2)
        r.sum().backward()
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            fn(m)


# ---- huber_loss's unreduced result is laid out as empty_like(input)

def test_huber_loss_layout_follows_the_input():
    def fn(m, swap):
        x = m.arange(23.0, dtype=m.float64).as_strided((3, 2, 3), (5, 2, 5), 0)
        y = m.arange(12.0, dtype=m.float64).as_strided((3, 2, 3), (1, 2, 3), 1)
        return m.nn.functional.huber_loss(*((y, x) if swap else (x, y)), reduction="none")
    for swap in (False, True):
        assert_same(fn(ember, swap), fn(torch, swap))


# ---- cross_entropy (fused path) with a +inf logit: torch's log_softmax row is all nan

@pytest.mark.parametrize("transpose", [False, True])
def test_cross_entropy_with_an_infinite_logit(transpose):
    inf = float("inf")
    rows = [[1.36, inf, 0.94, -2.5, -0.03], [-0.83, inf, 3, 0, -2], [1.0, 2.0, -inf, 0.5, 0.1], [inf, 0, 1, 2, 3]]

    def fn(m):
        x = m.tensor(rows).t().contiguous().t() if transpose else m.tensor(rows)
        x.requires_grad_()
        r = m.nn.functional.cross_entropy(x, m.tensor([0, 2, 3, 0]), reduction="none", ignore_index=2)
        r.sum().backward()
        return r.detach(), x.grad
    e, t = both(fn)
    assert_same(e[0], t[0], rtol=1e-6)
    assert_same(e[1], t[1], rtol=1e-6, check_strides=False)


# ---- float32 convolutions torch runs on its slow path: zero padding times an inf/nan weight is nan

@pytest.mark.parametrize("case", ["conv1d", "conv2d", "conv2d_same", "conv_transpose2d", "conv_transpose1d"])
def test_float32_slow_path_convolution_with_non_finite_weights(case):
    def fn(m):
        F = m.nn.functional
        g = m.Generator().manual_seed(3) if m is torch else None
        x = m.tensor(torch.randn(1, 3, 5, 6, generator=torch.Generator().manual_seed(3)).tolist())
        w = m.tensor(torch.randn(2, 3, 3, 3, generator=torch.Generator().manual_seed(4)).tolist())
        w[0, 1, 0, 0] = float("inf")
        w[1, 2, 2, 1] = float("nan")
        del g
        return {"conv1d": lambda: F.conv1d(x[:, :, 0], w[:, :, 0], padding=2, stride=2, dilation=2),
                "conv2d": lambda: F.conv2d(x, w, padding=1),
                "conv2d_same": lambda: F.conv2d(x, w, padding="same", dilation=2),
                "conv_transpose2d": lambda: F.conv_transpose2d(x, w.transpose(0, 1), stride=2),
                "conv_transpose1d": lambda: F.conv_transpose1d(x[:, :, 0], w.transpose(0, 1)[:, :, 0], stride=2,
                                                               padding=1)}[case]()
    e, t = both(fn)
    assert torch.equal(torch.isnan(torch.tensor(e.tolist())), torch.isnan(t))
    assert_same(e, t, rtol=1e-5, atol=1e-5)


# ---- interpolate: a dim that keeps its size under a scale factor

@pytest.mark.parametrize("mode, nd", [("nearest", 1), ("nearest", 2), ("nearest", 3), ("nearest-exact", 1),
                                      ("nearest-exact", 2), ("nearest-exact", 3), ("linear", 1), ("bilinear", 2),
                                      ("trilinear", 3)])
@pytest.mark.parametrize("scale", [1.04, 2.04, 1.3, 0.7])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_interpolate_size_keeping_scales(mode, nd, scale, layout):
    # torch's linear kernels copy a dim that keeps its size; its 2-d nearest kernel copies it (and halves a doubled
    # size's index); the 1-d/3-d nearest and the nearest-exact kernels apply the scale
    def fn(m):
        x = m.arange(20.0 * 3 ** (nd - 1), dtype=m.float64).view((1, 1, 20) + (3,) * (nd - 1))
        if layout == "transposed" and nd > 1:
            x = x.transpose(2, 3).contiguous().transpose(2, 3)
        return m.nn.functional.interpolate(x, scale_factor=(scale,) + (1.3,) * (nd - 1), mode=mode)
    assert_same(*both(fn), rtol=1e-12)


def test_interpolate_linear_kept_dim_with_infinities():
    def fn(m):
        x = m.tensor([[[-0.89, -4.0, -0.0, -float("inf")], [0.86, float("inf"), -2.0, 0.0]]])
        return m.nn.functional.interpolate(x, size=4, mode="linear")
    assert_same(*both(fn))


# ---- log_softmax backward in bfloat16/float16: float math, one rounding

@pytest.mark.parametrize("fn", ["log_softmax"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_reduced_precision_softmax_backward_rounds_once(fn, dtype):
    def grad(m):
        v = m.tensor([[[1.0, 2.11, -0.64], [-0.6, -1, -2.38], [0, -2.25, 1]],
                      [[1.74, 1.0, 1.0], [-0.31, -1.75, -1.15], [-3.5, 1, 2]]], requires_grad=True)
        getattr(m, fn)(v, 1, dtype=getattr(m, dtype)).float().square().sum().backward()
        return v.grad
    assert_same(*both(grad))


# ---- conv padding='same' with an odd total: torch pads the extra element as real zeros (0 * nan is nan there)

@pytest.mark.parametrize("kernel", [(3, 3), (3, 2), (2, 2)])
@pytest.mark.parametrize("batch", [1, 2])
def test_same_padding_extra_element_is_a_zero_padded_copy(kernel, batch):
    def fn(m):
        x = m.tensor(torch.randn(batch, 2, 4, 5, generator=torch.Generator().manual_seed(1)).tolist())
        w = m.tensor(torch.randn(3, 2, *kernel, generator=torch.Generator().manual_seed(2)).tolist())
        w[0, 0, -1, -1] = float("nan")
        w[1, 1, 0, -1] = float("inf")
        return m.nn.functional.conv2d(x, w, padding="same")
    e, t = both(fn)
    assert torch.equal(torch.isnan(torch.tensor(e.tolist())), torch.isnan(t))
    assert_same(e, t, rtol=1e-5, atol=1e-5)


def test_bilinear_nests_as_torch_so_infs_meet_zero_weights_alike():
    # fuzz (seed 33): Ember blended rows first, torch columns first, and a fused multiply-add moved an exact 0.5
    # weight off its value; an inf times a zero weight (nan) then landed in other places
    def fn(m):
        x = m.arange(20, dtype=m.float64).reshape(1, 1, 4, 5)
        x[0, 0, 1, 2], x[0, 0, 2, 0] = math.inf, -math.inf
        return m.nn.functional.interpolate(x, size=(7, 9), mode="bilinear", align_corners=False).isnan()
    e, t = both(fn)
    assert e.tolist() == t.tolist()
    e, t = both(lambda m: m.nn.functional.interpolate(m.arange(4, dtype=m.float64).view(1, 1, 4), size=7, mode="linear"))
    assert e.tolist()[0][0][3] == t.tolist()[0][0][3] == 1.5  # the midpoint of rows 1 and 2, exactly


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "cumsum", "cumprod", "softmin"])
def test_row_ops_over_a_size_one_dim_give_torch_strides(op):
    # fuzz (seed 33): the result moved back from the last dim kept stride 1 on the size-1 dim (torch: 3), and a
    # broadcast with it then laid its output out differently
    def fn(m):
        f = getattr(m.nn.functional, op) if op == "softmin" else getattr(m, op)
        r = f(m.arange(15, dtype=m.float32).view(5, 1, 3), dim=1)
        return r.stride(), m.atan2(r, m.ones(3, 1, 1, 1)).stride()
    e, t = both(fn)
    assert e == t


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_hardshrink_rounds_lambd_to_the_dtype(dtype):
    # fuzz (seed 35): torch casts hardshrink's lambd to the input dtype (softshrink's forward keeps it wide; both
    # backwards round it): -0.7 in float16 is -0.7001953125, which hardshrink(0.7) zeroes
    def fn(m):
        x = m.tensor([-0.7, 0.7, 0.7001, 0.71, -0.69], dtype=getattr(m, dtype), requires_grad=True)
        h, s = m.nn.functional.hardshrink(x, 0.7), m.nn.functional.softshrink(x, 0.7)
        gh, = m.autograd.grad(h.sum(), x)
        gs, = m.autograd.grad(s.sum(), x)
        return [t.float().tolist() for t in (h, s, gh, gs)]
    e, t = both(fn)
    assert e == t


def test_max_pool1d_checks_its_windows_before_the_dtype():
    # fuzz (seed 35): an empty output of an int64 input raises the size's RuntimeError first, not the dtype's
    for m in (ember, torch):
        x = m.tensor([5, 4, 5, -3, -3, 1]).as_strided((3, 2), (2, 0), 1)
        with pytest.raises(RuntimeError, match="output size") as e:
            m.nn.functional.max_pool1d(x, 5, stride=1, ceil_mode=True, padding=1)
        assert type(e.value) is RuntimeError
        with pytest.raises(NotImplementedError, match="max_pool1d_impl"):
            m.nn.functional.max_pool1d(m.tensor([[5, 4, 5, -3]]), 2)


@pytest.mark.parametrize("x_strides", [(18, 1, 3), (5, 1, 1), (18, 6, 1)])
@pytest.mark.parametrize("w_strides", [(3, 3, 1), (3, 1, 3), (1, 1, 1)])
def test_conv1d_output_layout_follows_torch(x_strides, w_strides):
    # fuzz (seeds 33-36): the input is made contiguous before the layout is judged (a transposed one gives a contiguous
    # result, a C = 1 one with odd strides a channels-last one), and an N111 weight never suggests channels-last
    def fn(m):
        c = 3 if x_strides[1] == 1 and x_strides[2] == 3 else (1 if x_strides == (5, 1, 1) else 3)
        x = m.arange(64, dtype=m.float32).as_strided((2, c, 6 if c == 3 else 5), x_strides)
        w = m.arange(16, dtype=m.float32).as_strided((2, c, 1) if w_strides != (3, 3, 1) else (2, c, 2),
                                                      w_strides if c == 3 or w_strides == (3, 1, 3) else (1, 1, 1))
        return m.nn.functional.conv1d(x, w).stride(), m.nn.functional.conv_transpose1d(x, w.transpose(0, 1)).stride()
    e, t = both(fn)
    assert e == t


def test_n111_tensors_never_suggest_channels_last():
    # torch's suggested memory format of an (N > 1, 1, 1, 1) tensor is contiguous whatever its strides
    def fn(m):
        x = m.arange(50, dtype=m.float32).as_strided((2, 1, 1, 1), (6, 1, 5, 1))
        w = m.arange(50, dtype=m.float32).as_strided((3, 1, 1, 1), (3, 1, 3, 3))
        return m.nn.functional.conv2d(x, m.ones(3, 1, 1, 1)).stride(), m.nn.functional.conv2d(m.ones(2, 1, 4, 4), w).stride()
    e, t = both(fn)
    assert e == t


@pytest.mark.parametrize("dtypes", [("bfloat16", "float64"), ("float32", "float64"), ("float64", "float32"),
                                    ("bfloat16", "bfloat16"), ("float16", "float32")])
def test_rms_norm_keeps_the_input_dtype_and_rounds_once(dtypes):
    # fuzz (seed 37): the weight multiplies in the compute dtype before the one rounding to the input's dtype
    def fn(m):
        m.manual_seed(0)
        x = m.arange(64, dtype=m.float32).view(4, 16).sin().to(getattr(m, dtypes[0]))
        w = m.arange(16, dtype=m.float32).cos().to(getattr(m, dtypes[1]))
        r = m.nn.functional.rms_norm(x, (16,), w, eps=1e-5)
        return str(r.dtype).replace("ember", "torch"), r.double().flatten().tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e, t = both(fn)
    assert e[0] == t[0]
    # bit-equal in half precision (one rounding); float32 means differ in their last bit (Ember sums in double)
    tol = 0.0 if dtypes[0] in ("bfloat16", "float16") else 1e-6
    assert e[1] == pytest.approx(t[1], rel=tol, abs=tol)


def test_pixel_shuffle_of_a_contiguous_channels_last_like_input():
    # fuzz (seed 37): (1, 8, 1, 1) with strides (8, 1, 8, 8) is contiguous and reads as channels-last; torch's result
    # is channels-last
    e, t = both(lambda m: m.nn.functional.pixel_shuffle(m.arange(8.).reshape(1, 1, 1, 8).transpose(1, 3), 2).stride())
    assert e == t


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_softplus_computes_half_precision_in_float(dtype):
    # fuzz (seed 37): exp(12) overflows float16; torch's kernel computes in float and gives 12
    def fn(m):
        x = m.tensor([3.0, 6.0, 9.0, 12.0, 15.0, -20.0], dtype=getattr(m, dtype))
        return m.nn.functional.softplus(x).float().tolist(), m.nn.functional.softplus(x, beta=2, threshold=30).float().tolist()
    e, t = both(fn)
    assert e == t


@pytest.mark.parametrize("op", ["min", "max", "amin", "amax"])
def test_extreme_reduction_backward_with_a_nan_gradient(op):
    # fuzz (seed 37): max()/min() put a NaN gradient only on the selected element (torch fills it in); amax/amin
    # multiply by the mask, so it reaches every element in both libraries
    def fn(m):
        x = m.tensor([[4.0, -2.0], [3.5, -4.0]], dtype=m.float64, requires_grad=True)
        r = getattr(m, op)(x)
        (r * float("nan")).sum().backward()
        return x.grad.isnan().tolist()
    e, t = both(fn)
    assert e == t


def test_constant_pad_keeps_channels_last_and_same_padding_conv_follows():
    # fuzz (seed 38): F.pad of a channels-last input was contiguous (torch keeps the suggested format), so a conv with
    # padding='same' and an even kernel (a padded copy first) lost the channels-last result
    def fn(m):
        x = m.arange(60, dtype=m.float64).reshape(1, 6, 5, 2).permute(0, 3, 1, 2)
        w = m.arange(8, dtype=m.float64).reshape(4, 1, 2, 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            conv = m.nn.functional.conv2d(x, w, padding="same", groups=2)
        return m.nn.functional.pad(x, (0, 1, 0, 1)).stride(), conv.stride(), conv.tolist()
    e, t = both(fn)
    assert e == t

"""Quantized tensors against torch 2.13: quantize_per_tensor / per_channel rounding (exact integers), dequantize,
printing, strides, views, copies, pickling, and the errors of everything else."""
import copy
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")

QDTYPES = ["quint8", "qint8", "qint32"]
ZERO_POINTS = {"quint8": [0, 3, 128, 255], "qint8": [-128, -5, 0, 127], "qint32": [-1000, 0, 7, 2 ** 20]}


def pair(a):
    """The same float32 values in ember and torch."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    return ember.tensor(a), torch.from_numpy(a.copy())


def ints(q):
    return np.asarray(q.int_repr().tolist())


def values(rng, n, scale):
    """Normal values at several magnitudes, a third of them on a rounding tie (x / scale = k + 0.5)."""
    a = (rng.standard_normal(n) * rng.choice([1, 10, 100])).astype(np.float32)
    a[::3] = (np.round(a[::3] / scale * 2) / 2 * np.float32(scale)).astype(np.float32)
    return a


@pytest.mark.parametrize("dt", QDTYPES)
@pytest.mark.parametrize("n", [1, 7, 33, 1000, 70001])
def test_quantize_per_tensor_integers_equal_torch(dt, n):
    rng = np.random.default_rng(n)
    for scale in [0.01, 0.1, 1 / 3, 0.07, 1e-3, 0.5, 3.7]:
        for zp in ZERO_POINTS[dt]:
            e, t = pair(values(rng, n, scale))
            eq = ember.quantize_per_tensor(e, scale, zp, getattr(ember, dt))
            tq = torch.quantize_per_tensor(t, scale, zp, getattr(torch, dt))
            assert (ints(eq) == tq.int_repr().numpy()).all(), (scale, zp)
            assert eq.q_scale() == tq.q_scale() and eq.q_zero_point() == tq.q_zero_point()
            np.testing.assert_array_equal(np.asarray(eq.dequantize().tolist(), np.float32), tq.dequantize().numpy())


@pytest.mark.parametrize("dt", QDTYPES)
def test_quantize_saturates_and_maps_nan_as_torch(dt):
    special = [float("nan"), float("inf"), -float("inf"), 1e10, -1e10, 3e9, 2.5, 3.5, -2.5, 0.0, -0.0]
    for n in [1, 40]:
        e, t = pair(np.resize(np.array(special, np.float32), n))
        for scale, zp in [(1.0, 5), (0.0, 3), (float("inf"), 0), (float("nan"), 0), (-1.0, 3)]:
            eq = ember.quantize_per_tensor(e, scale, zp if dt != "quint8" else abs(zp), getattr(ember, dt))
            tq = torch.quantize_per_tensor(t, scale, zp if dt != "quint8" else abs(zp), getattr(torch, dt))
            assert (ints(eq) == tq.int_repr().numpy()).all(), (n, scale, zp)


@pytest.mark.parametrize("dt", QDTYPES)
@pytest.mark.parametrize("shape,axis", [((4, 5), 0), ((4, 5), 1), ((2, 3, 6), 1), ((2, 3, 4, 5), 3), ((7,), 0)])
def test_quantize_per_channel_equal_torch(dt, shape, axis):
    rng = np.random.default_rng(sum(shape) + axis)
    c = shape[axis]
    scales = rng.uniform(0.005, 0.5, c)
    zps = rng.integers(*((0, 256) if dt == "quint8" else (-128, 128)), c)
    a = (rng.standard_normal(shape) * 10).astype(np.float32)
    a = np.moveaxis(a, axis, 0)
    for k in range(c):  # a third on rounding ties, and the special values
        a[k].flat[::3] = (np.round(a[k].flat[::3] / scales[k] * 2) / 2 * np.float32(scales[k])).astype(np.float32)
    a.flat[1:5] = [np.nan, np.inf, -np.inf, 1e10][:a.size - 1]
    a = np.moveaxis(a, 0, axis)
    e, t = pair(a)
    eq = ember.quantize_per_channel(e, ember.tensor(scales), ember.tensor(zps), axis, getattr(ember, dt))
    tq = torch.quantize_per_channel(t, torch.from_numpy(scales), torch.from_numpy(zps), axis, getattr(torch, dt))
    assert (ints(eq) == tq.int_repr().numpy()).all()
    np.testing.assert_array_equal(np.asarray(eq.dequantize().tolist(), np.float32), tq.dequantize().numpy())
    assert eq.q_per_channel_axis() == tq.q_per_channel_axis() == axis
    assert eq.q_per_channel_scales().tolist() == tq.q_per_channel_scales().tolist()
    assert eq.q_per_channel_zero_points().tolist() == tq.q_per_channel_zero_points().tolist()
    assert str(eq.qscheme()) == str(tq.qscheme()) == "torch.per_channel_affine"


REPRS = {
    "per_tensor": lambda m, x: m.quantize_per_tensor(x, 0.01, 128, m.quint8),
    "tensor_scale": lambda m, x: m.quantize_per_tensor(x, m.tensor(0.1), m.tensor(3), m.quint8),
    "qint8": lambda m, x: m.quantize_per_tensor(x, 0.1, 3, m.qint8),
    "qint32_big_scale": lambda m, x: m.quantize_per_tensor(x, 1e-05, 3, m.qint32),
    "per_channel": lambda m, x: m.quantize_per_channel(x, m.tensor([0.1, 0.2]), m.tensor([1, 2]), 0, m.quint8),
    "empty": lambda m, x: m.quantize_per_tensor(x[:0], 0.1, 2, m.quint8),
    "scalar": lambda m, x: m.quantize_per_tensor(x[0, 1], 0.1, 2, m.quint8),
    "view": lambda m, x: m.quantize_per_tensor(x, 0.25, 2, m.quint8).t()[1],
    "int_repr": lambda m, x: m.quantize_per_tensor(x, 0.25, 2, m.qint8).int_repr(),
    "dequantize_list": lambda m, x: m.dequantize([m.quantize_per_tensor(x, 0.5, 1, m.quint8)])[0],
}


@pytest.mark.parametrize("name", REPRS)
def test_printing_equals_torch(name):
    e, t = pair([[-1.0, 0.5, 2.0], [0.3, 0.1, -0.2]])
    assert repr(REPRS[name](ember, e)) == repr(REPRS[name](torch, t))


LAYOUTS = {
    "transposed": lambda m, x: x.reshape(4, 6).t(),
    "channels_last": lambda m, x: x.reshape(2, 3, 2, 2).contiguous(memory_format=m.channels_last),
    "sliced": lambda m, x: x.reshape(4, 6)[1:, ::2],
}
MAKERS = {
    "quantize_per_tensor": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8),
    "dequantize": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).dequantize(),
    "int_repr": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).int_repr(),
    "view_dequantize": lambda m, x: m.quantize_per_tensor(x.contiguous(), 0.1, 2, m.quint8).mT.dequantize(),
    "clone": lambda m, x: m.quantize_per_tensor(x.contiguous(), 0.1, 2, m.quint8).transpose(0, 1).clone(),
    "per_channel": lambda m, x: m.quantize_per_channel(x, m.ones(x.shape[1]), m.zeros(x.shape[1], dtype=m.int64), 1,
                                                       m.qint8),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("maker", MAKERS)
def test_strides_and_values_equal_torch(layout, maker):
    e, t = pair(np.arange(24, dtype=np.float32) / 7 - 1.5)
    re, rt = MAKERS[maker](ember, LAYOUTS[layout](ember, e)), MAKERS[maker](torch, LAYOUTS[layout](torch, t))
    assert re.stride() == rt.stride() and tuple(re.shape) == tuple(rt.shape) and str(re.dtype) == str(rt.dtype)
    read = (lambda r: r.int_repr()) if rt.is_quantized else (lambda r: r)
    assert read(re).tolist() == read(rt).tolist()


VIEWS = {
    "t": lambda q: q.t(), "select": lambda q: q[1], "slice": lambda q: q[:, 1:3], "view": lambda q: q.view(3, 2),
    "reshape": lambda q: q.reshape(-1), "unsqueeze": lambda q: q.unsqueeze(0), "expand": lambda q: q.expand(2, 2, 3),
    "narrow": lambda q: q.narrow(1, 0, 2), "detach": lambda q: q.detach(), "unbind": lambda q: q.unbind(1)[2],
    "contiguous": lambda q: q.t().contiguous(), "permute": lambda q: q.permute(1, 0), "flatten": lambda q: q.flatten(),
}


@pytest.mark.parametrize("name", VIEWS)
def test_per_tensor_views_keep_the_quantizer(name):
    e, t = pair([[-1.0, 0.5, 2.0], [0.3, 0.1, -0.2]])
    ve = VIEWS[name](ember.quantize_per_tensor(e, 0.05, 10, ember.quint8))
    vt = VIEWS[name](torch.quantize_per_tensor(t, 0.05, 10, torch.quint8))
    assert repr(ve) == repr(vt)
    assert ve.stride() == vt.stride() and ve.storage_offset() == vt.storage_offset()


def per_channel(m):
    x = m.arange(24, dtype=m.float32).reshape(2, 3, 4) / 7 - 1
    return m.quantize_per_channel(x, m.tensor([0.1, 0.2, 0.3]), m.tensor([1, 2, 3]), 1, m.quint8)


PER_CHANNEL_VIEWS = {  # views torch supports: same scheme, parameters, values and strides
    "select_other": lambda q: q[0], "select_axis": lambda q: q[:, 1], "slice_axis": lambda q: q[:, 1:],
    "step_axis": lambda q: q[:, ::2], "select_inner": lambda q: q[0, 1],
    "narrow_inner": lambda q: q.narrow(2, 1, 2), "narrow_axis": lambda q: q.narrow(1, 1, 2),
    "unsqueeze": lambda q: q.unsqueeze(0), "unbind": lambda q: q.unbind(1)[1],
    "split": lambda q: q.split(1, 1)[2], "one_channel": lambda q: q[:, 1:][:, 1:],
    "slice_then_select": lambda q: q[:, 1:][1],
}


@pytest.mark.parametrize("name", PER_CHANNEL_VIEWS)
def test_per_channel_views_equal_torch(name):
    ve, vt = PER_CHANNEL_VIEWS[name](per_channel(ember)), PER_CHANNEL_VIEWS[name](per_channel(torch))
    assert repr(ve) == repr(vt) and ve.stride() == vt.stride() and ve.storage_offset() == vt.storage_offset()


BEYOND_TORCH = {  # views torch refuses whose channels stay along one dim: ember keeps them (axis after the view)
    "transpose": (lambda t: t.transpose(0, 1), 0), "permute": (lambda t: t.permute(2, 1, 0), 1),
    "expand": (lambda t: t.expand(2, 2, 3, 4), 2), "movedim_select": (lambda t: t.movedim(1, 0)[2], None),
    "select_then_t": (lambda t: t[1].t(), 1), "last_dim_select": (lambda t: t[..., 0], 1),
    "transposed_copy_select": (lambda t: t.transpose(1, 2).contiguous()[0], 1),
}


@pytest.mark.parametrize("name", BEYOND_TORCH)
def test_per_channel_views_beyond_torch_keep_each_value(name):
    view, axis = BEYOND_TORCH[name]
    q = per_channel(ember)
    v = view(q)
    assert v.dequantize().tolist() == view(q.dequantize()).tolist()
    assert (v.q_per_channel_axis() if axis is not None else None) == axis
    assert str(v.qscheme()) == ("torch.per_channel_affine" if axis is not None else "torch.per_tensor_affine")


def test_per_channel_views_raise_where_the_channels_would_mix():
    q = per_channel(ember)
    for view in [lambda q: q.view(6, 4), lambda q: q.flatten(), lambda q: q[:, ::2][0], lambda q: q[:, :0],
                 lambda q: q.as_strided((3,), (5,), 0)]:
        with pytest.raises(RuntimeError, match="uniformly quantized"):
            view(q)
    with pytest.raises(RuntimeError, match="per-channel"):
        q.resize_(6)
    assert q.detach().int_repr().tolist() == q.int_repr().tolist()


def test_copy_semantics_equal_torch():
    e, t = pair([[-1.0, 0.5, 2.0], [0.3, 0.1, -0.2]])
    for m, x in [(ember, e), (torch, t)]:
        q = m.quantize_per_tensor(x, 0.1, 2, m.quint8)
        q.copy_(x * 2)  # a float source is quantized with q's parameters
        assert q.int_repr().tolist() == [[0, 12, 42], [8, 4, 0]]
        q.copy_(m.quantize_per_tensor(x, 0.2, 3, m.quint8))  # a quantized source brings its parameters
        assert (q.q_scale(), q.q_zero_point()) == (0.2, 3)
    cases = [
        lambda m, x: m.zeros(2, 3).copy_(m.quantize_per_tensor(x, 0.1, 2, m.quint8)),
        lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).copy_(x.double()),
        lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).copy_(x[0]),
        lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).copy_(
            m.quantize_per_channel(x, m.tensor([0.1, 0.2]), m.tensor([1, 2]), 0, m.quint8)),
    ]
    for case in cases:
        assert_same_error(case, e, t)


def outcome(fn, *args):
    try:
        fn(*args)
    except Exception as err:  # noqa: BLE001 - the type and message are what is compared
        return type(err).__name__, str(err).split("\n")[0]
    return None


def assert_same_error(case, e, t, message=True):
    oe, ot = outcome(case, ember, e), outcome(case, torch, t)
    assert oe is not None and ot is not None and oe[0] == ot[0], (oe, ot)
    if message:
        assert oe[1] == ot[1]


ERRORS = {  # same type and message as torch
    "float_dtype": lambda m, x: m.quantize_per_tensor(x, 0.1, 3, m.float32),
    "double_input": lambda m, x: m.quantize_per_tensor(x.double(), 0.1, 3, m.quint8),
    "int_input": lambda m, x: m.quantize_per_tensor(x.int(), 0.1, 3, m.quint8),
    "zp_above": lambda m, x: m.quantize_per_tensor(x, 0.1, 300, m.quint8),
    "zp_below": lambda m, x: m.quantize_per_tensor(x, 0.1, -129, m.qint8),
    "zp_int32": lambda m, x: m.quantize_per_tensor(x, 0.1, 2 ** 31, m.qint32),
    "tensor_scale_numel": lambda m, x: m.quantize_per_tensor(x, m.tensor([0.1, 0.2]), m.tensor(3), m.quint8),
    "pc_scale_int": lambda m, x: m.quantize_per_channel(x, m.tensor([1, 2]), m.tensor([1, 2]), 0, m.quint8),
    "pc_numel": lambda m, x: m.quantize_per_channel(x, m.tensor([0.1, 0.2]), m.tensor([1]), 0, m.quint8),
    "pc_dim": lambda m, x: m.quantize_per_channel(x, m.ones(2, 1), m.ones(2, 1, dtype=m.int64), 0, m.quint8),
    "pc_axis": lambda m, x: m.quantize_per_channel(x, m.tensor([0.1, 0.2]), m.tensor([1, 2]), 2, m.quint8),
    "pc_channels": lambda m, x: m.quantize_per_channel(x, m.tensor([0.1, 0.2]), m.tensor([1, 2]), 1, m.quint8),
    "pc_zp": lambda m, x: m.quantize_per_channel(x, m.tensor([0.1, 0.2]), m.tensor([1, 300]), 0, m.quint8),
    "pc_double": lambda m, x: m.quantize_per_channel(x.double(), m.tensor([0.1, 0.2]), m.tensor([1, 2]), 0, m.quint8),
    "to_quantized": lambda m, x: x.to(m.quint8),
    "add": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8) + 1,
    "add_": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).add_(1),
    "promote": lambda m, x: x + m.quantize_per_tensor(x, 0.1, 2, m.quint8),
    "promote_types": lambda m, x: m.promote_types(m.quint8, m.float32),
    "is_signed": lambda m, x: m.qint8.is_signed,
    "numpy": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).numpy(),
    "requires_grad": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).requires_grad_(),
    "item_many": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).item(),
}
ERROR_TYPES = {  # same exception type as torch; ember's message says more
    "sum": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).sum(),
    "int_repr_float": lambda m, x: x.int_repr(),
    "q_scale_float": lambda m, x: x.q_scale(),
    "q_scale_per_channel": lambda m, x: m.quantize_per_channel(x, m.tensor([0.1, 0.2]), m.tensor([1, 2]), 0,
                                                               m.quint8).q_scale(),
    "axis_per_tensor": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).q_per_channel_axis(),
    "float": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).float(),
    "zero_": lambda m, x: m.quantize_per_tensor(x, 0.1, 2, m.quint8).zero_(),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_equal_torch(name):
    assert_same_error(ERRORS[name], *pair([[-1.0, 0.5, 2.0], [0.3, 0.1, -0.2]]))


@pytest.mark.parametrize("name", ERROR_TYPES)
def test_error_types_equal_torch(name):
    assert_same_error(ERROR_TYPES[name], *pair([[-1.0, 0.5, 2.0], [0.3, 0.1, -0.2]]), message=False)


def test_refused_ops_raise_and_leave_the_tensor_as_it_was():
    q = ember.quantize_per_tensor(ember.tensor([[-1.0, 0.5], [2.0, 0.25]]), 0.25, 4, ember.quint8)
    before = q.int_repr().tolist()
    refused = [lambda: q + q, lambda: q.mul_(2), lambda: q.zero_(), lambda: q.clamp_(0, 1), lambda: q.sum(),
               lambda: q.max(), lambda: q.sort(), lambda: q.flip(0), lambda: q[[0, 1]],
               lambda: q.index_put_((ember.tensor([0]),), ember.tensor(1.0)),
               lambda: q.view(ember.uint8), lambda: q.tolist(),
               lambda: q.masked_fill_(ember.tensor(True), 0), lambda: q.softmax(0), lambda: q.matmul(q),
               lambda: q.abs(), lambda: ember.zeros(2, dtype=ember.quint8), lambda: ember.iinfo(ember.quint8),
               lambda: ember.empty(2, dtype=ember.quint8)]  # torch makes one whose quantizer is unknown
    for op in refused:
        with pytest.raises((RuntimeError, NotImplementedError)):
            op()
    assert q.int_repr().tolist() == before


def test_item_is_the_dequantized_value():
    q = ember.quantize_per_tensor(ember.tensor([0.3, 1.7]), 0.1, 2, ember.qint8)
    assert q[1].item() == pytest.approx(1.7, abs=1e-6)


def test_list_forms_equal_torch():
    e, t = pair([[-1.0, 0.5, 2.0], [0.3, 0.1, -0.2]])
    qe = ember.quantize_per_tensor([e, e * 2], ember.tensor([0.1, 0.2]), ember.tensor([3, 4]), ember.quint8)
    qt = torch.quantize_per_tensor([t, t * 2], torch.tensor([0.1, 0.2]), torch.tensor([3, 4]), torch.quint8)
    assert [repr(q) for q in qe] == [repr(q) for q in qt]
    assert [d.tolist() for d in ember.dequantize(list(qe))] == [d.tolist() for d in torch.dequantize(list(qt))]


@pytest.mark.parametrize("per_channel", [False, True])
def test_pickle_and_deepcopy_round_trip(per_channel):
    x = ember.tensor([[-1.0, 0.5, 2.0], [0.3, 0.1, -0.2]])
    q = (ember.quantize_per_channel(x, ember.tensor([0.1, 0.2]), ember.tensor([1, 2]), 0, ember.qint8) if per_channel
         else ember.quantize_per_tensor(x, 0.05, 7, ember.quint8)[1])
    for r in [pickle.loads(pickle.dumps(q)), copy.deepcopy(q)]:
        assert repr(r) == repr(q) and r.int_repr().tolist() == q.int_repr().tolist()


def test_dtype_and_qscheme_objects():
    for name in QDTYPES:
        assert repr(getattr(ember, name)) == repr(getattr(torch, name))
        assert getattr(ember, name).itemsize == getattr(torch, name).itemsize
        assert not getattr(ember, name).is_floating_point
    for name in ["per_tensor_affine", "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric",
                 "per_channel_affine_float_qparams"]:
        assert repr(getattr(ember, name)) == repr(getattr(torch, name))
    q = ember.quantize_per_tensor(ember.ones(2), 0.1, 2, ember.quint8)
    assert q.qscheme() is ember.per_tensor_affine and q.is_quantized and not ember.ones(1).is_quantized
    assert q.element_size() == 1 and q.nbytes == 2 and q.type() == "torch.QUInt8Tensor"


def test_deprecation_warning_once_as_torch():
    code = ("import warnings, {m}\nwith warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    for _ in range(2): {m}.quantize_per_tensor({m}.ones(2), 0.1, 2, {m}.quint8)\n"
            "print([str(x.message).split(' (Triggered')[0] for x in w])")
    out = [subprocess.run([sys.executable, "-c", code.format(m=m)], capture_output=True, text=True, check=True).stdout
           for m in ["ember", "torch"]]
    assert out[0] == out[1] and "deprecated" in out[0]


def test_int_repr_is_a_copy():
    # int_repr of a dense tensor was a view of its integers: writing to it changed the quantized tensor
    q = ember.quantize_per_tensor(ember.tensor([0.5, 1.0]), 0.5, 0, ember.quint8)
    q.int_repr().fill_(7)
    assert q.int_repr().tolist() == [1, 2]


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")  # torch's, as it loads a quantized storage
@pytest.mark.parametrize("writer,reader", [(ember, ember), (ember, torch), (torch, ember)])
def test_checkpoints_round_trip_with_torch(tmp_path, writer, reader):
    # torch's _rebuild_qtensor records: QUInt8Storage-typed storages, the scheme as a torch global, per-channel
    # scales and zero points as tensors (whose bytes ember reads after unpickling)
    x = [[-1.0, 0.5, 2.0], [0.3, 0.1, -0.2]]
    m = writer
    q = m.quantize_per_tensor(m.tensor(x), 0.1, 3, m.quint8)
    qc = m.quantize_per_channel(m.tensor(x), m.tensor([0.5, 0.25]), m.tensor([1, -2]), 0, m.qint8)
    m.save({"q": q, "qc": qc, "view": q[1], "q32": m.quantize_per_tensor(m.tensor(x), 1e-3, -7, m.qint32)},
           tmp_path / "q.pt")
    loaded = reader.load(tmp_path / "q.pt")
    expected = {"q": q, "qc": qc, "view": q[1], "q32": m.quantize_per_tensor(m.tensor(x), 1e-3, -7, m.qint32)}
    for k, v in expected.items():
        assert repr(loaded[k]) == repr(v), k
        assert loaded[k].stride() == v.stride() and loaded[k].storage_offset() == v.storage_offset()


@pytest.mark.parametrize("op", ["t_", "unsqueeze_", "squeeze_", "transpose_"])
def test_in_place_views_move_the_per_channel_axis(op):
    # in-place view ops took the view's geometry but kept the old axis: t_() dequantized with the wrong scales
    x = ember.arange(6, dtype=ember.float32).reshape(2, 1, 3)
    q = ember.quantize_per_channel(x, ember.tensor([0.5, 1.0]), ember.tensor([0, 0]), 0, ember.qint8)
    args = {"t_": (), "unsqueeze_": (0,), "squeeze_": (1,), "transpose_": (0, 2)}[op]
    view = {"t_": lambda t: t.squeeze(1).t(), "unsqueeze_": lambda t: t.unsqueeze(0),
            "squeeze_": lambda t: t.squeeze(1), "transpose_": lambda t: t.transpose(0, 2)}[op]
    target = q.squeeze(1).clone() if op == "t_" else q.clone()
    getattr(target, op)(*args)
    assert target.dequantize().tolist() == view(q.dequantize()).tolist()
    assert target.q_per_channel_axis() == view(q).q_per_channel_axis()


@pytest.mark.parametrize("fmt", [None, "preserve_format", "channels_last", "contiguous_format"])
def test_clone_formats_equal_torch(fmt):
    # torch's quantized clone without a format is contiguous; preserve_format keeps a channels-last layout
    strides = []
    for m in (ember, torch):
        q = m.quantize_per_tensor(m.ones(5, 2, 3, 5).permute(0, 3, 1, 2), 0.1, 0, m.quint8)
        strides.append(q.clone(**({} if fmt is None else {"memory_format": getattr(m, fmt)})).stride())
    assert strides[0] == strides[1]


JOINS = {
    "same_params": lambda m, a, b, x: m.cat([a, a]), "requantized": lambda m, a, b, x: m.cat([a, b]),
    "dim1": lambda m, a, b, x: m.cat([a, b], 1), "stack": lambda m, a, b, x: m.stack([a, b]),
    "stack_last": lambda m, a, b, x: m.stack([a, b], 2), "hstack": lambda m, a, b, x: m.hstack([a, b]),
    "view_input": lambda m, a, b, x: m.cat([b, a.t().t()]),
}
JOIN_ERRORS = {
    "mixed": lambda m, a, b, x: m.cat([a, x]),
    "dtypes": lambda m, a, b, x: m.cat([a, m.quantize_per_tensor(x, 0.1, 3, m.qint8)]),
    "per_channel": lambda m, a, b, x: m.cat([a, m.quantize_per_channel(x, m.tensor([0.1, 0.2]), m.tensor([1, 1]), 0,
                                                                       m.quint8)]),
}


def join_inputs(m):
    x = m.tensor([[-1.0, 0.5, 2.0], [0.3, 0.1, -0.2]])
    return m.quantize_per_tensor(x, 0.1, 3, m.quint8), m.quantize_per_tensor(x * 2, 0.2, 5, m.quint8), x


@pytest.mark.parametrize("name", JOINS)
def test_cat_and_stack_equal_torch(name):
    # torch's quantized cat requantizes the others to the first's scale and zero point, with a warning
    results, warned = [], []
    for m in (ember, torch):
        inputs = join_inputs(m)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            results.append(JOINS[name](m, *inputs))
        warned.append([str(x.message).split(" (Triggered")[0] for x in w if "cat operator" in str(x.message)])
    re, rt = results
    assert repr(re) == repr(rt) and re.int_repr().tolist() == rt.int_repr().tolist() and re.stride() == rt.stride()
    assert warned[0] == warned[1]


@pytest.mark.filterwarnings("ignore:All inputs of this cat operator")  # torch warns, then raises
@pytest.mark.parametrize("name", JOIN_ERRORS)
def test_cat_errors_as_torch(name):
    e = outcome(JOIN_ERRORS[name], ember, *join_inputs(ember))
    t = outcome(JOIN_ERRORS[name], torch, *join_inputs(torch))
    assert e is not None and t is not None and e[0] == t[0], (e, t)

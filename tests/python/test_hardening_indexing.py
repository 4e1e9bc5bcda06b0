"""Indexing hardened against torch: every dtype x row width x layout x index kind for the gather and
scatter kernels, torch's indexing rules (ints, 0-dim tensors, numpy, sequences, errors), and a seeded
random differential test of index expressions (reads, writes and exceptions)."""
import random
import warnings

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, outcome

KERNEL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
ROWS = 6


def make(m, dtype, shape, start=0):
    """arange values (small, exact in every dtype) of `shape` in library m."""
    data = (np.arange(start, start + int(np.prod(shape))) % 97).reshape(shape)
    t = m.from_numpy(data.astype(np.int64))
    return t % 2 == 1 if dtype == "bool" else t.to(getattr(m, dtype))


def layout(m, dtype, width, kind):
    """A (ROWS, width) tensor of the given layout, and the base tensor it views."""
    if kind == "contiguous":
        base = make(m, dtype, (ROWS, width))
        return base, base
    if kind == "transposed":
        base = make(m, dtype, (width, ROWS))
        return base, base.t()
    if kind == "expanded":
        base = make(m, dtype, (1, width))
        return base, base.expand(ROWS, width)
    if kind == "offset":
        base = make(m, dtype, (ROWS + 2, width + 2))
        return base, base[1:ROWS + 1, 2:]
    base = make(m, dtype, (2 * ROWS, 2 * width + 1))  # steps along both dims
    return base, base[::2, 1::2]


INDEX_KINDS = {
    "tensor": lambda m: m.tensor([4, 0, 5, 0]),
    "list": lambda m: [4, 0, 5, 0],
    "mask": lambda m: m.tensor([True, False, True, True, False, True]),
    "negative": lambda m: m.tensor([-1, -6, 2]),
}


def same_outcome(run, check_strides=False):
    rt, et = outcome(lambda: run(torch))
    re_, ee = outcome(lambda: run(ember))
    assert (et is None) == (ee is None), (et, ee)
    if et is not None:
        assert type(ee).__name__ == type(et).__name__, (et, ee)
        return
    for e, t in zip(re_, rt) if isinstance(rt, tuple) else [(re_, rt)]:
        assert_same(e, t, check_strides=check_strides)


@pytest.mark.parametrize("kind", ["contiguous", "transposed", "expanded", "offset", "stepped"])
@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
def test_gathers_every_dtype_width_layout(dtype, kind):
    for width in range(1, 10):
        for index in INDEX_KINDS.values():
            same_outcome(lambda m: layout(m, dtype, width, kind)[1][index(m)])
        cols = [width - 1, 0, width // 2]
        same_outcome(lambda m: layout(m, dtype, width, kind)[1][:, cols])
        for dim, idx in ((0, [5, 0, 3, 3]), (1, cols)):
            same_outcome(lambda m: layout(m, dtype, width, kind)[1].index_select(dim, m.tensor(idx)))
            same_outcome(lambda m: layout(m, dtype, width, kind)[1].index_select(dim, m.tensor(idx, dtype=m.int32)))
        for dim in (0, 1):
            rows = np.random.default_rng(width).integers(0, (ROWS, width)[dim], (ROWS, width))
            same_outcome(lambda m: layout(m, dtype, width, kind)[1].gather(dim, m.from_numpy(rows)))


# Expanded tensors are left out: torch deprecates writing into them (a warning), Ember refuses.
@pytest.mark.parametrize("kind", ["contiguous", "transposed", "offset", "stepped"])
@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
def test_scatters_every_dtype_width_layout(dtype, kind):
    """Writes through each index kind land where torch's do, and nowhere else (the base is compared)."""
    for width in range(1, 10):
        for index in INDEX_KINDS.values():
            def scalar(m):
                base, x = layout(m, dtype, width, kind)
                x[index(m)] = 1
                return base, x

            def rows(m):
                base, x = layout(m, dtype, width, kind)
                x[index(m)] = make(m, dtype, (width,), start=50)
                return base, x

            def accumulate(m):
                base, x = layout(m, dtype, width, kind)
                idx = index(m)
                idx = m.tensor(idx) if isinstance(idx, list) else idx
                n = int(idx.sum()) if idx.dtype == m.bool else idx.shape[0]
                x.index_put_((idx,), make(m, dtype, (n, width), start=7), accumulate=True)
                return base, x

            for run in (scalar, rows, accumulate):
                same_outcome(run)

        def fill(m):
            base, x = layout(m, dtype, width, kind)
            mask = make(m, "bool", (ROWS, width), start=3)
            return base, x.masked_fill(mask, 1), x.masked_fill_(mask[0], 0)

        same_outcome(fill)


def test_small_row_gathers_regressions():
    """Rows of 2, 4 and 8 bytes (the typed fast paths) read whole rows, in Python and C++ paths."""
    x = ember.tensor([[1., 2.], [3., 4.], [5., 6.]])
    assert x[ember.tensor([2, 0])].tolist() == [[5., 6.], [1., 2.]]
    assert x.index_select(0, ember.tensor([2, 0])).tolist() == [[5., 6.], [1., 2.]]
    assert x[[1]].tolist() == [[3., 4.]] and x[x[:, 0] > 2].tolist() == [[3., 4.], [5., 6.]]
    y = ember.arange(12, dtype=ember.int16).reshape(3, 4)
    assert y[ember.tensor([2, 0])].tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    z = ember.arange(12, dtype=ember.int8).reshape(4, 3).t()  # (3, 4), index along the stride-3 dim
    assert z.index_select(1, ember.tensor([3, 1])).tolist() == [[9, 3], [10, 4], [11, 5]]


SEMANTICS = [
    "x[1, :, [0, 3]]", "x[:, 1, [0, 3]]", "x[[0, 1], 1, :]", "x[[0, 1], :, 1]", "x[1, [0, 1], [0, 1]]",
    "x[m.tensor(1)]", "x[m.tensor(-1), 2]", "x[m.tensor(1, dtype=m.int32)]", "x[np.int64(1)]", "x[np.int32(-1), 2]",
    "x[np.array([0, 2])]", "x[np.array([True, False, True])]", "x[np.array([[0, 1], [1, 0]])]", "x[np.array(1)]",
    "x[np.array(True)]", "x[np.array([1, 0], dtype=np.uint8)]", "x[np.array([1.7])]", "x[[1.5]]", "x[[True, 0]]",
    "x[[[0, 1], [1, 0]]]", "x[[m.tensor(1), m.tensor(0)]]", "x[[0, None]]", "x[[0, slice(None)]]", "x[(0, 1),]",
    "x[[0, 1], [0, 1, 2]]", "x[5]", "x[-4]", "x[[5]]", "x[m.tensor([-4])]", "x[:, [4]]", "x[1, 2, 3, 4]",
    "x[m.tensor([0.])]", "x[m.tensor([], dtype=m.float32)]", "x[m.tensor([1], dtype=m.int16)]",
    "x[m.tensor([1], dtype=m.int8)]", "x[[]]", "x[m.tensor([], dtype=m.int64)]", "x[m.tensor([True, False])]",
    "x[m.tensor([[True]])]", "x[None, ..., [0, 1], None]", "x[..., 0, ...]", "x[m.tensor(1, dtype=m.uint8)]",
    "x[m.tensor(True)]", "x[m.tensor(False), 0]", "x[True, [0], True]", "x[[0], True, [1]]", "x[np.float64(1)]",
    "x[1.0]", "x[np.bool_(True)]", "x['a']", "x[2 ** 70]", "x[m.zeros(2, 3, dtype=m.bool), 0]",
    "x[m.ones(3, 4, dtype=m.bool), 0]", "x[:, m.tensor(2)]", "x[..., m.tensor([[0, 1]])]", "x[1:, [0, 2]][..., 1]",
    "m.zeros(0, 3)[m.tensor([0])]", "m.zeros(0, 3)[[]]", "m.tensor(5)[[0]]", "m.tensor(5)[0]", "m.tensor(5)[0:1]",
    "x[0:0, [9]]", "x[:, 2:2, [0], [7]]", "m.zeros(2, 0, 1)[:, [0, 0], [-2]]", "m.zeros(2, 0)[:, []]",
    "m.zeros(2, 0)[[], [5]]", "x[..., np.ones((4, 5), dtype=bool)]", "x[..., m.ones(4, 5, dtype=m.bool)]",
    "x[0, ..., np.ones(5, dtype=bool)]", "x[np.ones((3, 4), dtype=bool), :]", "x[..., ..., :]", "x[..., ..., 0:1]",
    "x[..., ..., 1:]", "x[..., ..., ::2]", "x[..., ..., 0]", "x[..., ..., [0]]", "x[..., 1, ..., 0:1, 0]",
    "x[[0, 1], -1, ..., ...]",
    "m.tensor(5)[None]", "m.tensor(5)[()]", "m.tensor(5)[0,]", "m.tensor(5)[m.tensor(True)]", "m.tensor(5)[...]",
    "m.tensor(5)[m.tensor(0)]",
]


def eval_in(m, expr, x=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = m.arange(60).reshape(3, 4, 5) if x is None else x
        return eval(expr, {"m": m, "x": x, "np": np})


@pytest.mark.parametrize("expr", SEMANTICS)
def test_index_semantics_match_torch(expr):
    rt, et = outcome(lambda: eval_in(torch, expr))
    re_, ee = outcome(lambda: eval_in(ember, expr))
    assert (et is None) == (ee is None), (et, ee)
    if et is not None:
        assert type(ee).__name__ == type(et).__name__, (et, ee)
        if isinstance(et, IndexError):
            assert str(ee).split("\n")[0] == str(et).split("\n")[0]
        return
    assert_same(re_, rt, check_strides=False)


@pytest.mark.parametrize("expr", [s for s in SEMANTICS if "[" in s[2:]])
def test_index_writes_match_torch(expr):
    """x[expr] = value writes the same elements as torch (and raises the same errors, changing nothing)."""
    target = expr.rsplit("[", 1) if not expr.startswith("x[") else ("x", expr[2:-1])
    if not expr.startswith("x["):
        return
    def run(m):
        x = m.arange(60).reshape(3, 4, 5)
        eval_in(m, f"x.__setitem__(({target[1]}), -1)", x)
        return x
    rt, et = outcome(lambda: run(torch))
    re_, ee = outcome(lambda: run(ember))
    assert (et is None) == (ee is None), (expr, et, ee)
    if et is None:
        assert_same(re_, rt)
    else:
        assert type(ee).__name__ == type(et).__name__


def test_int_and_zero_dim_tensor_indices_are_views():
    def run(m):
        x = m.arange(60).reshape(3, 4, 5)
        views = [x[m.tensor(1)], x[np.int64(2), 1:], x[np.array(0)], x[m.tensor(-1), :, m.tensor(1, dtype=m.int32)]]
        for k, v in enumerate(views):
            v.fill_(-k - 1)  # a view: writes reach x
        return (x, *views)
    rt, re_ = run(torch), run(ember)
    for e, t in zip(re_, rt):
        assert_same(e, t)


def test_mixed_int_slice_tensor_write_hits_torch_elements():
    e, t = ember.zeros(3, 4, 5), torch.zeros(3, 4, 5)
    e[1, :, [0, 3]] = ember.arange(8.).reshape(4, 2)
    t[1, :, [0, 3]] = torch.arange(8.).reshape(4, 2)
    assert_same(e, t)


@pytest.mark.parametrize("value", ["'a'", "None", "[1, 2, 3, 4, 5]", "np.ones(5)", "np.float32(1)", "np.bool_(1)",
                                   "object()", "np.int16(3)", "2.5", "True", "m.tensor(2.5)", "m.ones(1, 1, 5)",
                                   "m.ones(2, 5)", "m.ones(1, 4, 5, dtype=m.int64)"])
@pytest.mark.parametrize("index", ["0", "[0]", "(slice(None), [1, 2])", "True"])
def test_assigned_values_match_torch(index, value):
    def run(m):
        x = m.arange(60).reshape(3, 4, 5)
        eval_in(m, f"x.__setitem__({index}, {value})", x)
        return x
    rt, et = outcome(lambda: run(torch))
    re_, ee = outcome(lambda: run(ember))
    assert (et is None) == (ee is None), (et, ee)
    if et is None:
        assert_same(re_, rt)
    else:
        assert type(ee).__name__ == type(et).__name__
        assert str(ee) == str(et) or not isinstance(et, TypeError), (ee, et)


OUT_OF_RANGE = [
    "x[3]", "x[-4]", "x[[0, 3]]", "x[m.tensor([-4, 0])]", "x[:, [0, 5]]", "x[0, m.tensor([5])]", "x[[0], [-6]]",
    "x.index_select(0, m.tensor([3]))", "x.index_select(0, m.tensor([-1]))", "x.index_select(1, m.tensor([0, 5]))",
    "x.gather(0, m.tensor([[3]]))", "x.gather(1, m.tensor([[-1]]))",
    "x.index_put_((m.tensor([0, 3]),), m.tensor(1.))", "x.index_put_((m.tensor([-4]),), m.tensor(1.), accumulate=True)",
    "x.__setitem__([0, 3], 1.)", "x.__setitem__((slice(None), [-6]), 1.)", "x.__setitem__(5, 1.)",
    "x.__setitem__(([0, 1], [4, 5]), 1.)",
]


@pytest.mark.parametrize("expr", OUT_OF_RANGE)
def test_out_of_range_raises_like_torch_and_changes_nothing(expr):
    """torch's exception type and message; Ember checks every index before writing (torch may write some)."""
    errors = []
    for m in (ember, torch):
        x = m.arange(20.).reshape(4, 5)[:3]
        before = x.clone()
        _, err = outcome(lambda: eval(expr, {"m": m, "x": x}))
        assert err is not None, expr
        assert m is torch or m.equal(x, before), expr
        errors.append(err)
    assert type(errors[0]) is type(errors[1]) and str(errors[0]) == str(errors[1])


# ---- Random differential test: index expressions on random shapes, dtypes and layouts ----

def random_tensor_spec(rng):
    ndim = rng.choice([0, 1, 1, 2, 2, 3, 3, 4])
    shape = [rng.choice([0, 1, 2, 3, 4, 5]) if rng.random() < 0.1 else rng.randint(1, 5) for _ in range(ndim)]
    return {"shape": shape, "dtype": rng.choice(KERNEL_DTYPES),
            "layout": rng.choice(["contiguous", "permuted", "offset", "stepped", "expanded"]) if ndim else "contiguous",
            "perm": rng.sample(range(ndim), ndim), "seed": rng.randrange(1 << 30)}


def build_tensor(m, spec):
    """(base, x): x of spec's shape in the spec's layout, viewing base (built from numpy, so that both
    libraries start from the same strides)."""
    shape, n = spec["shape"], len(spec["shape"])
    rng = np.random.default_rng(spec["seed"])

    def make_base(np_shape):
        t = m.from_numpy(np.ascontiguousarray(rng.integers(-50, 50, size=np_shape)))
        return t > 0 if spec["dtype"] == "bool" else t.to(getattr(m, spec["dtype"]))
    kind = spec["layout"] if n else "contiguous"
    if kind == "contiguous":
        base = make_base(shape)
        return base, base
    if kind == "offset":
        base = make_base([s + 2 for s in shape])
        return base, base[tuple(slice(1, s + 1) for s in shape)]
    if kind == "stepped":
        base = make_base([2 * s + 1 for s in shape])
        return base, base[tuple(slice(1, None, 2) for _ in shape)]
    if kind == "permuted":
        perm = spec["perm"]
        inv = [perm.index(k) for k in range(n)]
        base = make_base([shape[inv[k]] for k in range(n)])  # base's dim k is x's dim inv[k]
        return base, base.permute(*perm)
    base = make_base([1 if s else 0 for s in shape])  # expanded: unit dims broadcast
    return base, base.expand(*shape)


def random_item(rng, size, dims_left):
    """One index item spec for a dim of `size` (sizes past the end are guesses: some items are invalid)."""
    def index_value():
        if rng.random() < 0.06:
            return rng.choice([size, -size - 1, size + 3])  # out of range
        return rng.randint(-size, size - 1) if size else 0
    kind = rng.choices(["int", "slice", "none", "ellipsis", "list", "tensor", "mask", "np_array", "np_int",
                        "bool", "tensor0", "np_mask"], [8, 10, 3, 3, 6, 8, 4, 3, 2, 1, 2, 2])[0]
    if kind in ("int", "np_int", "tensor0"):
        return (kind, index_value())
    if kind == "slice":
        pick = lambda: rng.choice([None, rng.randint(-size - 2, size + 2)])  # noqa: E731
        step = rng.choice([None, 1, 2, 3]) if rng.random() > 0.03 else rng.choice([0, -1])
        return ("slice", pick(), pick(), step)
    if kind in ("list", "tensor", "np_array"):
        shape = rng.choice([(rng.randint(0, 4),), (rng.randint(1, 3), rng.randint(1, 3))])
        values = [index_value() for _ in range(int(np.prod(shape)))]
        dtype = rng.choice(["int64", "int64", "int32"]) if rng.random() > 0.05 else rng.choice(["int16", "float32"])
        return (kind, shape, values, dtype)
    if kind in ("mask", "np_mask"):
        # numpy masks stay 1-d: torch counts an n-d one as one dim, so ... and the indices after it
        # can reach past the last dim, where torch reads undefined sizes
        k = 1 if kind == "np_mask" else min(dims_left, rng.choice([1, 1, 2]))
        return (kind, rng.getrandbits(30), k)
    return (kind,) if kind != "bool" else ("bool", rng.random() < 0.7)


def random_index(rng, shape):
    n = rng.randint(1, max(1, len(shape))) + (rng.random() < 0.15)  # sometimes one item too many
    items, d = [], 0
    for _ in range(n):
        size = shape[d] if d < len(shape) else rng.randint(0, 3)
        item = random_item(rng, size, max(1, len(shape) - d))
        if item[0] in ("mask", "np_mask"):
            mask_shape = list(shape[d:d + item[2]])
            if len(mask_shape) < item[2] or rng.random() < 0.05:
                mask_shape = [rng.randint(0, 3) for _ in range(item[2])]  # wrong shape
            item = item + (mask_shape,)
        d += {"mask": item[2] if item[0] == "mask" else 0, "np_mask": item[2] if item[0] == "np_mask" else 0}.get(
            item[0], 0 if item[0] in ("none", "ellipsis", "bool") else 1)
        items.append(item)
    return items, rng.random() < 0.2 and n == 1  # bare (not a tuple) for a single item sometimes


def build_item(m, item):
    kind = item[0]
    if kind == "int":
        return item[1]
    if kind == "np_int":
        return np.int64(item[1])
    if kind == "tensor0":
        return m.tensor(item[1])
    if kind == "slice":
        return slice(*item[1:])
    if kind == "none":
        return None
    if kind == "ellipsis":
        return Ellipsis
    if kind == "bool":
        return item[1]
    if kind in ("list", "tensor", "np_array"):
        arr = np.array(item[2], dtype=np.int64).reshape(item[1])
        if kind == "list":
            return arr.tolist()
        if kind == "np_array":
            return arr.astype(item[3])
        return m.from_numpy(arr).to(getattr(m, item[3]))
    bits = np.random.default_rng(item[1]).random(item[3]) < 0.5
    return bits if kind == "np_mask" else m.from_numpy(bits)


def shares_storage(r, x):
    return r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


def check_read(spec, items, bare):
    results = {}
    for m in (torch, ember):
        base, x = build_tensor(m, spec)
        built = [build_item(m, it) for it in items]
        index = built[0] if bare else tuple(built)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r, err = outcome(lambda: x[index])
        results[m] = (r, err, x)
    (rt, et, xt), (re_, ee, xe) = results[torch], results[ember]
    assert (et is None) == (ee is None), (et, ee)
    if et is not None:
        assert type(ee).__name__ == type(et).__name__, (et, ee)
        return None
    view = shares_storage(rt, xt) and rt.numel() > 0 and xt.numel() > 0
    assert_same(re_, rt, check_strides=view)
    if xt.numel() > 0 and rt.numel() > 0:
        assert shares_storage(re_, xe) == view, "view/copy mismatch"
    return rt


def check_write(spec, items, bare, read_shape, value_kind, rng_seed):
    results = {}
    for m in (torch, ember):
        base, x = build_tensor(m, spec)
        built = [build_item(m, it) for it in items]
        index = built[0] if bare else tuple(built)
        if value_kind == "scalar":
            value = 7 if spec["dtype"] != "bool" else True
        else:
            shape = read_shape if value_kind == "full" else read_shape[-1:]
            arr = np.random.default_rng(rng_seed).integers(-9, 9, size=shape)
            value = m.from_numpy(arr)
            value = value > 0 if spec["dtype"] == "bool" else value.to(getattr(m, spec["dtype"]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, err = outcome(lambda: x.__setitem__(index, value))
        results[m] = (err, base)
    (et, bt), (ee, be) = results[torch], results[ember]
    assert (et is None) == (ee is None), (et, ee)
    if et is not None:
        assert type(ee).__name__ == type(et).__name__, (et, ee)
        return
    assert_same(be, bt, check_strides=False)


def has_duplicates(items):
    """Whether a tensor write could hit one element twice (torch leaves the winner unspecified)."""
    return any(it[0] in ("list", "tensor", "np_array") and len(set(it[2])) < len(it[2]) for it in items) or \
        sum(it[0] in ("list", "tensor", "np_array", "mask", "np_mask") for it in items) > 1


@pytest.mark.parametrize("chunk", range(8))
def test_random_index_expressions_match_torch(chunk):
    rng = random.Random(1000 + chunk)
    for case in range(400):
        spec = random_tensor_spec(rng)
        items, bare = random_index(rng, spec["shape"])
        where = f"case {case}: x of {spec}, index {items}, bare={bare}"
        try:
            rt = check_read(spec, items, bare)
            if spec["layout"] == "expanded":
                continue  # writes into expanded tensors: deprecated in torch, refused by Ember
            kinds = ["scalar"] if rt is None else ["scalar", "full", "row"]
            for kind in kinds:
                if kind != "scalar" and has_duplicates(items):
                    continue
                check_write(spec, items, bare, list(rt.shape) if rt is not None else [], kind, case)
        except AssertionError as e:
            raise AssertionError(f"{where}: {e}") from e


@pytest.mark.parametrize("expr", [
    "x.masked_fill(m.ones(2, 3, dtype=m.bool), 1)", "x.masked_fill_(m.ones(2, 3, dtype=m.bool), 1)",
    "x.masked_fill(m.tensor([True, False, True]), 2.5)", "x.masked_fill(m.ones(4, dtype=m.bool), 1)",
    "m.masked_fill(x, m.tensor([[True], [False]]), -1)",
] + [f"x.masked_fill(m.ones(3, dtype=m.{d}), 1)" for d in KERNEL_DTYPES[1:]])
def test_masked_fill_broadcasts_and_errors_like_torch(expr):
    def run(m):
        x = m.arange(3.)
        return eval(expr, {"m": m, "x": x}), x
    rt, et = outcome(lambda: run(torch))
    re_, ee = outcome(lambda: run(ember))
    assert (et is None) == (ee is None), (et, ee)
    if et is None:
        for e, t in zip(re_, rt):
            assert_same(e, t)
    else:
        assert type(ee) is type(et) and str(ee) == str(et)


def test_masked_fill_broadcast_gradient():
    grads = []
    for m in (torch, ember):
        x = m.arange(3., requires_grad=True)
        y = x.masked_fill(m.tensor([[True, False, False], [False, False, True]]), 0)
        (y * m.arange(6.).reshape(2, 3)).sum().backward()
        grads.append((y.grad_fn.name(), x.grad))
    assert grads[0][0] == grads[1][0]
    assert_same(grads[1][1], grads[0][1])


OP_EDGES = [
    "x.gather(1, m.tensor([[0], [3]]))", "x.gather(0, m.tensor([[2, 1]], dtype=m.int32))",
    "x.gather(1, m.zeros(0, 2, dtype=m.int64))", "s.gather(0, m.tensor(0))", "s.gather(0, m.tensor([0]))",
    "x.gather(1, m.tensor([0, 1]))", "x.gather(2, m.tensor([[0]]))", "x.gather(1, m.tensor([[0, 1, 2, 3, 0]]))",
    "x.gather(0, m.tensor([[0, 1, 2, 0, 1]]))", "x.gather(1, m.tensor([[0.]]))", "s.index_select(0, m.tensor([0, 0]))",
    "s.index_select(0, m.tensor(0))", "x.index_select(0, m.tensor([], dtype=m.int64))", "x.index_select(-1, m.tensor(2))",
    "s.index_select(0, m.tensor([1]))", "x.index_select(0, m.tensor([True]))", "x.index_select(0, m.tensor([[0]]))",
    "x.clone().index_put_((m.tensor([True, False, True]),), m.tensor(1.), accumulate=True)",
    "x.clone().index_put_((m.tensor([0, 0]), m.tensor([1, 1])), m.tensor([1., 2.]), accumulate=True)",
    "x.clone().index_put_([m.tensor([0, 0])], m.tensor([1., 2., 3., 4.]), accumulate=True)",
    "x.clone().index_put_((m.tensor([[0], [2]]), m.tensor([1, 3])), m.tensor([[1., 2.]]))",
    "s.clone().index_put_((m.tensor(True),), m.tensor(1.))", "s.clone().index_put_((m.tensor([0]),), m.tensor(1.))",
    "x.index_put((m.tensor([1]),), m.tensor([9., 9, 9, 9]))", "x.clone().index_put_((m.tensor([1]),), m.tensor([9, 9, 9, 9]))",
    "x.clone().index_put_((None, m.tensor([1])), m.tensor(1.))", "x.clone().index_put_((m.tensor([1.]),), m.tensor(1.))",
    "x.clone().index_put_((m.tensor([1]),), m.tensor([1., 2.]))", "x.t()[m.tensor([1, 3])]", "x.t()[[1, 3], [0, 2]]",
    "x.t().clone().index_put_((m.tensor([1, 3]),), m.tensor(0.))", "s[True]", "s[False]", "s[[True]]",
    "s[m.tensor([True])]", "s[None, None]",
]


@pytest.mark.parametrize("expr", OP_EDGES)
def test_gather_index_select_index_put_edges_match_torch(expr):
    def run(m):
        return eval(expr, {"m": m, "x": m.arange(12.).reshape(3, 4), "s": m.tensor(5.)})
    rt, et = outcome(lambda: run(torch))
    re_, ee = outcome(lambda: run(ember))
    assert (et is None) == (ee is None), (et, ee)
    if et is None:
        assert_same(re_, rt, check_strides=False)
    else:
        assert type(ee) is type(et), (ee, et)
        assert isinstance(et, TypeError) or str(ee) == str(et), (ee, et)


@pytest.mark.parametrize("expr", [
    "x[1, :, [0, 3]]", "x[m.tensor(1)]", "x[np.int64(2), 1:]", "x[np.array([0, 2, 0])]", "x[[[0, 1], [1, 0]]]",
    "x[..., m.tensor([[0, 1]])]", "x[True, [0], True]", "x[x > 30]", "x[:, m.tensor(2)]", "x[None, 1, [0, 0], 1:3]",
])
def test_index_gradients_match_torch(expr):
    out = []
    for m in (torch, ember):
        x = m.arange(60.).reshape(3, 4, 5).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = eval(expr, {"m": m, "x": x, "np": np})
        (y * m.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        out.append((y.grad_fn.name(), x.grad))
    assert out[0][0] == out[1][0]
    assert_same(out[1][1], out[0][1])


@pytest.mark.parametrize("stmt", [
    "x[[1, 2]] = x[0:2]", "x[[1, 2]] = x[0]", "x.index_put_((m.tensor([1, 2]),), x[0:2], accumulate=True)",
    "x[x[:, 0] > 0] = x[0:2]", "x[[0]] = x[0:1]", "x[[0]] = x[0, 0]", "y = x.t(); y[[0]] = x[:, 0]",
    "x[[1]] = x.t()[0:1, 0:1]", "x[[2]] = x[::2, 0]", "x[[0]] = x[0, 0].clone()",
])
def test_writes_from_aliasing_values_match_torch(stmt):
    """A value sharing memory with the written tensor raises as torch, or (unknown aliasing) reads a copy."""
    def run(m):
        x = m.arange(12.).reshape(3, 4)
        exec(stmt, {"m": m, "x": x})
        return x
    rt, et = outcome(lambda: run(torch))
    re_, ee = outcome(lambda: run(ember))
    assert (et is None) == (ee is None), (et, ee)
    if et is None:
        assert_same(re_, rt)
    else:
        assert type(ee) is type(et) and str(ee) == str(et)

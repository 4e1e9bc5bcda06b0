"""Op database entries of the order statistics (sort, topk, medians, quantiles, scans, searches, unique)."""
import numpy as np

from opdb import DTYPES, FLOATS, INTS, LAYOUTS, SPECIAL, OpInfo, Sample, T, fixed

NO_BOOL = tuple(d for d in DTYPES if d != "bool")
F32_64 = ("float32", "float64")
X = (3, 4, 5)
TIES = [2, 0, 2, 1, 0, 2, 1, 1, 0, 2, 2, 1]  # repeated values: the indices torch picks among equals
NAN_ROW = [1.0, np.nan, -0.0, 0.0, -np.inf, np.nan, 0.0, -0.0, 3.0, np.inf]


def special(dtype, shape=(len(SPECIAL),)):
    """SPECIAL values for floats (NaN, infinities, signed zeros), integer limits otherwise."""
    if dtype in FLOATS:
        return T(shape, values=SPECIAL)
    if dtype == "bool":
        return T((4,), values=[1, 0, 1, 0])
    info = np.iinfo(dtype)
    return T((6,), values=[info.max, info.min, 0, -1 if info.min else 1, info.max, info.min])


def along_samples(*extra, keep=True, dims=(-1, 0, 1), with_k=False, k=2, skip=()):
    """x in every layout along a few dims (with k first when with_k), keepdim, ties, special values, 0-dim, empty;
    skip: (layout, dim) pairs left out."""
    def call(x, dim, **kw):
        return Sample(x, k, dim, **kw) if with_k else Sample(x, dim, **kw)

    def gen(dtype):
        for layout in LAYOUTS:
            for dim in dims:
                if (layout, dim) not in skip:
                    yield call(T(X, layout), dim)
        if keep:
            yield call(T(X, "transposed"), 1, keepdim=True)
        for kw in extra:
            yield call(T(X, "offset"), -1, **kw)
        yield call(T((12,), values=TIES), 0)
        yield call(T((3, 4), values=TIES), 0)
        yield call(special(dtype), 0)
        if dtype in FLOATS:
            yield call(T((2, 5), values=NAN_ROW), -1)
        if with_k:
            yield Sample(T(()), 1, 0)
            yield Sample(T((0, 3)), 1, 1)
            yield Sample(T((2, 0)), 1, -1, raises=True)
        else:
            yield Sample(T(()), 0)
            yield Sample(T((0, 3)), 1)
            yield Sample(T((2, 0)), -1, raises=True)
    return gen


def topk_samples(dtype):
    for layout in LAYOUTS:
        yield Sample(T(X, layout), 2)
    yield Sample(T(X, "transposed"), 3, 0)
    yield Sample(T(X), 2, 1, False)
    yield Sample(T(X, "offset"), 4, -1, True, False)
    yield Sample(T((12,), values=TIES), 5)
    yield Sample(T((12,), values=TIES), 3, largest=False)
    yield Sample(T((2, 300), low=-2, high=2), 3)  # torch's partial_sort path (k * 64 <= n), with ties in integers
    yield Sample(T((2, 300), low=-2, high=2), 4, largest=False)
    yield Sample(special(dtype), 3)
    yield Sample(special(dtype), 3, largest=False)
    yield Sample(T(()), 1)
    yield Sample(T(()), 0)
    yield Sample(T((0, 3)), 2)
    yield Sample(T(X), 6, raises=True)


def sort_samples(dtype):
    for layout in LAYOUTS:
        yield Sample(T(X, layout))
        yield Sample(T(X, layout), 0, True)
    yield Sample(T(X, "transposed"), dim=1, stable=True)
    yield Sample(T(X), dim=-2, descending=True, stable=False)
    yield Sample(T((12,), values=TIES), stable=True)
    yield Sample(T((12,), values=TIES), descending=True, stable=True)
    yield Sample(T((2, 600), low=-3, high=3), stable=True)  # the radix sort's rows
    yield Sample(T((2, 600), low=-3, high=3), descending=True, stable=True)
    yield Sample(special(dtype))
    yield Sample(special(dtype), descending=True)
    yield Sample(T(()))
    yield Sample(T((0, 3)), 0)
    yield Sample(T(X), 3, raises=True)


def quantile_samples(dtype):
    q = T((3,), values=[0.0, 0.3, 1.0])
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        yield Sample(T(X), 0.4, 1, interpolation=interp)
        yield Sample(T(X, "transposed"), q, -1, True, interpolation=interp)
    yield Sample(T(X, "offset"), 0.25)
    yield Sample(T(X, "expanded"), q, 0)
    yield Sample(T(X), q, keepdim=True)
    yield Sample(T((2, 5), values=NAN_ROW), 0.5, 1)
    yield Sample(T((2, 5), values=NAN_ROW), q)
    yield Sample(T(()), 0.5)
    yield Sample(T(X), 1.5, raises=True)
    yield Sample(T((0, 3)), 0.5, raises=True)


def cum_samples(dtype):
    for layout in LAYOUTS:
        for dim in (0, -1):
            yield Sample(T(X, layout), dim)
    yield Sample(T((12,), values=TIES), 0)
    yield Sample(special(dtype), 0)
    if dtype in FLOATS:
        yield Sample(T((2, 5), values=NAN_ROW), 1)
    yield Sample(T(()), 0)
    yield Sample(T((0, 3)), 0)


BOUNDS = T((6,), values=[-2.5, -1, 0, 0, 1.5, 2])  # sorted in every dtype (uint8 keeps the sorted tail)
ROWS = T((3, 4), values=[-2, -1, 0, 1, -1, 0, 0, 2, 0, 1, 2, 3])


def searchsorted_samples(dtype):
    sorted_ = BOUNDS if dtype != "uint8" else T((6,), values=[0, 0, 1, 1.5, 2, 2.5])
    yield Sample(sorted_, T((3, 4)))
    yield Sample(sorted_, T((3, 4), "transposed"), right=True)
    yield Sample(sorted_, T((3, 4), "offset"), side="right")
    yield Sample(sorted_, T((3, 4)), side="left", out_int32=True)
    yield Sample(ROWS if dtype != "uint8" else T((3, 4), values=[0, 1, 2, 3] * 3), T((3, 5)))
    yield Sample(T((5,), values=[3, 1, 2, 0, 2]), T((4,)), sorter=T((5,), dtype="int64", values=[3, 1, 2, 4, 0]))
    yield Sample(sorted_, T(()))
    yield Sample(sorted_, T((0,)))
    yield Sample(sorted_, 1)
    yield Sample(sorted_, T((3,)), side="left", right=True, raises=True)
    yield Sample(ROWS, T((4, 2)), raises=True)


def bucketize_samples(dtype):
    sorted_ = BOUNDS if dtype != "uint8" else T((6,), values=[0, 0, 1, 1.5, 2, 2.5])
    yield Sample(T((3, 4)), sorted_)
    yield Sample(T((3, 4), "transposed"), sorted_, right=True)
    yield Sample(T((3, 4), "offset"), sorted_, out_int32=True)
    yield Sample(T(()), sorted_)
    yield Sample(T((3,)), ROWS, raises=True)


def histc_samples(dtype):
    yield Sample(T((50,)))
    yield Sample(T((5, 10), "transposed"), 7)
    yield Sample(T((5, 10), "offset"), 4, -1, 1)
    yield Sample(T((5, 10)), bins=6, min=-2.0, max=2.0)
    yield Sample(T((7,), values=[1, 1, 1, 1, 1, 1, 1]), 3)
    yield Sample(T((8,), values=[-3, -1.5, 0, 0, 1.5, 3, 3, 2.999]), 4)
    yield Sample(T((0,)))
    yield Sample(T((5,)), 0, raises=True)
    yield Sample(T((5,)), 4, 2, 1, raises=True)


def bincount_samples(dtype):
    yield Sample(T((20,), low=0, high=6))
    yield Sample(T((20,), "offset", low=0, high=6), minlength=10)
    yield Sample(T((20,), low=0, high=6), T((20,), dtype="float32"))
    yield Sample(T((20,), low=0, high=6), weights=T((20,), dtype="float64"), minlength=3)
    yield Sample(T((20,), low=0, high=6), T((20,), dtype="int32"))
    yield Sample(T((0,)), minlength=4)
    yield Sample(T((0,)))
    yield Sample(T((2, 3), low=0, high=3), raises=True)


def unique_samples(dtype):
    yield Sample(T((3, 4), values=TIES))
    yield Sample(T((3, 4), "transposed", values=TIES), return_inverse=True)
    yield Sample(T((3, 4), "offset", values=TIES), return_counts=True)
    yield Sample(T((3, 4), values=TIES), True, True, True)
    yield Sample(T((3, 4), "expanded"), sorted=False, return_inverse=True, return_counts=True)
    yield Sample(T(X), return_inverse=True, return_counts=True)
    yield Sample(special(dtype), return_inverse=True, return_counts=True)
    yield Sample(T((4, 3), values=[1, 2, 0, 1, 2, 0, 0, 1, 1, 1, 2, 0]), dim=0, return_inverse=True, return_counts=True)
    yield Sample(T((3, 4), "transposed", values=TIES), dim=1, return_inverse=True, return_counts=True)
    yield Sample(T((3, 4), values=TIES), dim=-1)
    yield Sample(T(()), return_inverse=True, return_counts=True)
    yield Sample(T((0, 3)), return_inverse=True, return_counts=True)
    yield Sample(T((0, 3)), dim=0)
    yield Sample(T(()), dim=0, raises=True)


def consecutive_samples(dtype):
    runs = [1, 1, 2, 2, 2, 0, 1, 1, 0, 0, 2, 1]
    yield Sample(T((12,), values=runs))
    yield Sample(T((3, 4), "transposed", values=runs), return_inverse=True)
    yield Sample(T((3, 4), values=runs), return_counts=True, return_inverse=True)
    yield Sample(T((4, 3), values=[1, 2, 0, 1, 2, 0, 0, 1, 1, 1, 2, 0]), dim=0, return_inverse=True, return_counts=True)
    yield Sample(T((3, 4), "offset", values=runs), dim=1, return_counts=True)
    yield Sample(special(dtype), return_inverse=True, return_counts=True)
    yield Sample(T(()), return_inverse=True, return_counts=True)
    yield Sample(T((0, 3)))


def median_whole_samples(dtype):
    for layout in LAYOUTS:
        yield Sample(T(X, layout))
    yield Sample(T((12,), values=TIES))
    yield Sample(special(dtype))
    if dtype in FLOATS:
        yield Sample(T((2, 5), values=NAN_ROW))
    yield Sample(T(()))


ENTRIES = [
    OpInfo("sort", sort_samples, grad=True),
    OpInfo("argsort", lambda dtype: (s for s in sort_samples(dtype) if "stable" in s.kwargs or not s.kwargs),
           missing=("out",)),
    OpInfo("msort", lambda dtype: iter([Sample(T(X)), Sample(T(X, "transposed")), Sample(T((12,), values=TIES)),
                                        Sample(special(dtype)), Sample(T(())), Sample(T((0, 3)))]), grad=True),
    OpInfo("topk", topk_samples, dtypes=NO_BOOL, grad=True),
    OpInfo("kthvalue", along_samples(with_k=True), dtypes=NO_BOOL, grad=True),
    OpInfo("median", median_whole_samples, dtypes=NO_BOOL, grad=True),
    # torch's median along a dim of stride 0 reads past the data (it walks the row with stride 1)
    OpInfo("median_dim", along_samples(skip=[("expanded", 0)]), torch_fn="median", dtypes=NO_BOOL, grad=True),
    OpInfo("nanmedian", median_whole_samples, dtypes=NO_BOOL, grad=True),
    OpInfo("nanmedian_dim", along_samples(skip=[("expanded", 0)]), torch_fn="nanmedian", dtypes=NO_BOOL, grad=True),
    OpInfo("mode", along_samples(), grad=True),
    OpInfo("quantile", quantile_samples, dtypes=F32_64, grad=True),
    OpInfo("nanquantile", quantile_samples, dtypes=F32_64, grad=True),
    OpInfo("cummax", cum_samples, grad=True),
    OpInfo("cummin", cum_samples, grad=True),
    OpInfo("searchsorted", searchsorted_samples, dtypes=NO_BOOL),
    OpInfo("bucketize", bucketize_samples, dtypes=NO_BOOL),
    OpInfo("histc", histc_samples, dtypes=FLOATS),
    OpInfo("bincount", bincount_samples, dtypes=INTS),
    OpInfo("unique", unique_samples),
    OpInfo("unique_consecutive", consecutive_samples),
]

"""Op database entries of the scatter family (ember/scatter.h): scatter, scatter_add, scatter_reduce, index_add/copy/
fill/reduce, take, take_along_dim, put, masked_select, masked_scatter, where(cond), nonzero(as_tuple=True), argwhere."""
from opdb import DTYPES, NUMERIC, OpInfo, Sample, T, x34


def idx(values, shape=None):
    """An int64 index tensor with these values (shape: as given, else a vector)."""
    flat = [v for row in values for v in row] if values and isinstance(values[0], list) else list(values)
    shape = shape or ((len(values), len(values[0])) if values and isinstance(values[0], list) else (len(flat),))
    return T(shape, dtype="int64", values=flat)


def fixed(*samples):
    return lambda dtype: iter(samples)


PERM = idx([[3, 0, 1, 2], [1, 2, 3, 0], [0, 3, 2, 1]])  # a permutation of each row: scatter along dim 1 is invertible
ROWS = idx([[2, 0, 1, 0], [0, 0, 2, 1]])  # along dim 0, with repeats
BAD = idx([[0, 1, 2, 5], [0, 0, 0, 0]])  # 5 is out of range along dim 0
MASK = T((3, 4), dtype="bool", seed=5)
NO_BOOL = tuple(d for d in DTYPES if d != "bool")


def scatter_samples(last, **kw):
    """scatter-like calls: last(i) is the fourth argument of sample i (a src tensor or a value)."""
    return fixed(Sample(x34(), 1, PERM, last(1), **kw),
                 Sample(x34("transposed"), 0, ROWS, last(2), **kw),
                 Sample(x34("offset"), 1, idx([[3, 3], [0, 1], [2, 2]]), last(3), **kw),
                 Sample(x34("expanded"), -2, ROWS, last(4), **kw),
                 Sample(T(()), 0, idx([0], ()), last(5) if isinstance(last(5), (int, float)) else T((), seed=5), **kw),
                 Sample(x34(), 0, idx([], (0, 4)), last(6), **kw),
                 Sample(x34(), 0, BAD, last(7), raises=True, **kw),
                 Sample(x34(), 0, idx([0] * 10, (2, 5)), last(8), raises=True, **kw),
                 Sample(x34(), 2, ROWS, last(9), raises=True, **kw))


def src(i):
    return x34("offset" if i == 2 else "contiguous", seed=i)


def reduction(reduce, dtypes=DTYPES, include_self=True):
    name = f"scatter_reduce_{reduce}" + ("" if include_self else "_exclude")
    return OpInfo(name, scatter_samples(src, reduce=reduce, include_self=include_self), torch_fn="scatter_reduce",
                  dtypes=dtypes, grad=True, tol={"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2)})


def slices(reduce=None, **kw):
    """index_add / index_copy / index_reduce calls (reduce: index_reduce's argument; torch's index_reduce of a bool
    vector or 0-dim tensor raises)."""
    r = (reduce,) if reduce else ()

    def gen(dtype):
        vector_raises = bool(reduce) and dtype == "bool"
        return iter([Sample(x34(), 0, idx([2, 0]), T((2, 4), seed=1), *r, **kw),
                     Sample(x34("transposed"), 1, idx([3, 1, 3]), T((3, 3), "offset", seed=2), *r, **kw),
                     Sample(x34("expanded"), -1, idx([0, 2]), T((3, 2), "transposed", seed=3), *r, **kw),
                     Sample(T(()), 0, idx([0]), T((), seed=4), *r, raises=vector_raises, **kw),
                     Sample(T((5,)), 0, idx([4, 4, 1]), T((3,), seed=5), *r, raises=vector_raises, **kw),
                     Sample(x34(), 0, idx([]), T((0, 4)), *r, **kw),
                     Sample(x34(), 0, idx([3]), T((1, 4)), *r, raises=True, **kw),
                     Sample(x34(), 1, idx([0, 1]), T((3, 3)), *r, raises=True, **kw)])
    return gen


def index_reduce(reduce, dtypes=DTYPES, include_self=True):
    name = f"index_reduce_{reduce}" + ("" if include_self else "_exclude")
    return OpInfo(name, slices(reduce, include_self=include_self), torch_fn="index_reduce", dtypes=dtypes, grad=True,
                  tol={"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2)})


ENTRIES = [
    OpInfo("scatter", scatter_samples(src), grad=True),
    OpInfo("scatter_value", scatter_samples(lambda i: [2.5, -1, 3, True, 0, 1, 2, 1, 1][i - 1]), torch_fn="scatter",
           grad=True),
    *[OpInfo(f"scatter_reduce_arg_{reduce}", scatter_samples(src, reduce=reduce), torch_fn="scatter")
      for reduce in ("add", "multiply")],
    OpInfo("scatter_value_multiply", scatter_samples(lambda i: 2, reduce="multiply"), torch_fn="scatter"),
    OpInfo("scatter_add", scatter_samples(src), grad=True),
    *[reduction(r, dtypes) for r, dtypes in (("sum", DTYPES), ("prod", DTYPES), ("mean", NO_BOOL), ("amax", DTYPES),
                                             ("amin", DTYPES))],
    *[reduction(r, dtypes, False) for r, dtypes in (("sum", DTYPES), ("mean", NO_BOOL), ("amax", DTYPES))],
    OpInfo("index_add", slices(), grad=True),
    OpInfo("index_add_alpha", slices(alpha=2), torch_fn="index_add", grad=True),
    OpInfo("index_copy", slices(), grad=True),
    OpInfo("index_fill", fixed(Sample(x34(), 1, idx([0, 3]), 2.5), Sample(x34("transposed"), 0, idx([2, 0]), T(())),
                               Sample(x34("offset"), -1, idx([1, 1]), T((), seed=2)), Sample(T(()), 0, idx([0]), -1), Sample(x34(), 1, idx([-1, 0]), 3),
                               Sample(x34(), 0, idx([]), 1), Sample(x34(), 0, idx([3]), 1, raises=True),
                               Sample(x34(), 0, idx([0, 1]), T((1,)), raises=True)),
           grad=True),
    *[index_reduce(r, dtypes) for r, dtypes in (("prod", DTYPES), ("mean", NO_BOOL), ("amax", DTYPES),
                                                ("amin", DTYPES))],
    *[index_reduce(r, NO_BOOL, False) for r in ("prod", "mean", "amin")],
    OpInfo("take", fixed(Sample(x34(), idx([[0, 5, -1], [11, -12, 3]])), Sample(x34("transposed"), idx([1, 4, 7, 1])),
                         Sample(x34("expanded"), idx([[2], [9]])), Sample(T(()), idx([0], ())),
                         Sample(x34(), idx([])), Sample(x34(), idx([12]), raises=True)),
           grad=True),
    OpInfo("take_along_dim", fixed(Sample(x34(), idx([[3, 0], [1, 1], [2, 0]]), 1),
                                   Sample(x34("transposed"), idx([[2, 0, 1, 1]]), 0),
                                   Sample(T((3, 1)), idx([[0, 0, 0, 0]]), 0), Sample(x34(), idx([[0, 11, 5]])),
                                   Sample(x34("offset"), idx([[1], [0], [3]]), -1),
                                   Sample(x34(), idx([0, 1]), 0, raises=True)),
           grad=True),
    OpInfo("put", fixed(Sample(x34(), idx([0, -1, 5]), T((3,), seed=1)),
                        Sample(x34("transposed"), idx([[1, 2], [7, 1]]), T((2, 2), "transposed", seed=2)),
                        Sample(x34("expanded"), idx([4, 4]), T((2,), seed=3), accumulate=True),
                        Sample(x34("offset"), idx([11, 0, 11]), T((3,), seed=4), True),
                        Sample(T(()), idx([0]), T((1,), seed=5)),
                        Sample(x34(), idx([12]), T((1,)), raises=True),
                        Sample(x34(), idx([0, 1]), T((1,)), raises=True)),
           grad=True),
    OpInfo("masked_select", fixed(Sample(x34(), MASK), Sample(x34("transposed"), T((4,), dtype="bool", seed=3)),
                                  Sample(T((4,), "offset"), MASK), Sample(T(()), T((), dtype="bool", seed=1)),
                                  Sample(T((0, 4)), T((4,), dtype="bool")),
                                  Sample(x34(), T((2,), dtype="bool"), raises=True),
                                  Sample(x34(), T((3, 4), dtype="uint8", seed=5), raises=True)),
           grad=True),
    OpInfo("masked_scatter", fixed(Sample(x34(), MASK, T((12,), seed=1)),
                                   Sample(x34("transposed"), T((4,), dtype="bool", seed=3), x34("offset", seed=2)),
                                   Sample(x34("expanded"), MASK, T((2, 6), seed=3)),
                                   Sample(T((4,)), T((3, 1), dtype="bool", seed=4), T((3, 4), seed=4)),
                                   Sample(T(()), T((), dtype="bool", seed=1), T((1,), seed=5)),
                                   Sample(x34(), MASK, T((2,)), raises=True)),
           grad=True),
    OpInfo("nonzero_tuple", fixed(Sample(x34(), as_tuple=True), Sample(x34("transposed", dtype="bool"), as_tuple=True),
                                  Sample(T(()), as_tuple=True), Sample(T((0, 3)), as_tuple=True)),
           torch_fn="nonzero"),
    OpInfo("where_condition", fixed(Sample(MASK), Sample(x34("offset")), Sample(T(())), Sample(T((2, 0, 3)))),
           torch_fn="where", method=None),
    OpInfo("argwhere", fixed(Sample(x34()), Sample(x34("expanded", dtype="bool")), Sample(T(())), Sample(T((0, 3))))),
]

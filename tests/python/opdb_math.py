"""Op database entries of the math area (issue 10): einsum, logit, xlogy, hypot, signbit, nansum, nanmean,
logcumsumexp, diff, cross, kron, tensordot, cdist, dist and the linalg norms."""
from opdb import D, F64, FLOATS, NUMERIC, OpInfo, Sample, T, XFail, binary, fixed, reduction_samples, unary

MM_TOL = {"float16": (2e-3, 1e-2), "bfloat16": (1.6e-2, 1e-1), "float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)}


def einsum(name, *samples, **kw):
    """einsum in torch's sublist form (x, [0, 1], y, [1, 2], [0, 2]); the equation strings are in test_einsum.py.
    bool is left out: torch's bmm refuses it (a permutation or diagonal alone takes it, see test_einsum.py)."""
    return OpInfo(name, fixed(*samples), torch_fn="einsum", dtypes=NUMERIC, grad=True, tol=MM_TOL, **kw)


ENTRIES = [
    einsum("einsum", Sample(T((3, 4)), [0, 1], T((4, 5), seed=1), [1, 2], [0, 2]),
           Sample(T((3, 4), "transposed"), [0, 1], T((5, 4), "offset", seed=1), [2, 1], [0, 2]),
           Sample(T((2, 3, 4), "expanded"), [0, 1, 2], T((2, 5, 4), seed=1), [0, 3, 2], [0, 1, 3]),
           Sample(T((3, 3)), [0, 0], [0]), Sample(T((3, 3), "transposed"), [0, 0]),
           Sample(T((3, 4)), [0, 1], [1, 0]), Sample(T((3, 4), "offset"), [0, 1], []),
           Sample(T((2, 3, 4)), [Ellipsis, 1], T((4,), seed=1), [1], [Ellipsis]),
           Sample(T((3,)), [0], T((4,), seed=1), [1]), Sample(T(()), [], T((3,), seed=1), [0]),
           Sample(T((0, 4)), [0, 1], T((4, 5), seed=1), [1, 2]),
           Sample(T((3, 4)), [0, 1], T((5, 4), seed=1), [0, 1], raises=True)),
    # 3+ operands contract the smallest pair first (torch without opt_einsum: left to right): strides may differ
    einsum("einsum_chain", Sample(T((2, 3)), [0, 1], T((3, 4), seed=1), [1, 2], T((4, 2), seed=2), [2, 3], [0, 3]),
           Sample(T((2, 3)), [0, 1], T((3, 2), seed=1), [1, 2], T((2, 5), seed=2), [2, 3], T((5,), seed=3), [3], [0]),
           check_strides=False),
]

INF = float("inf")
P0_GRAD = XFail("x = torch.ones(3, requires_grad=True); torch.linalg.vector_norm(x, 0).backward() leaves x.grad None "
                "(torch's ord-0 backward gives an undefined tensor; torch.dist(x, y, 0) even raises); ember's is zeros",
                sample=("contiguous3x4,contiguous3x4,0", "contiguous3x5,0"), forms=("grad",))
NAN_VALUES = [1.5, float("nan"), -2.0, 0.25, float("nan"), 3.0]


def nan_reduction(name, dtypes, **kw):
    """A reduction whose float samples also hold NaNs."""
    base = reduction_samples(dims=(None, 0, -1, (0, 2)), extra=(F64,))

    def gen(dtype):
        yield from base(dtype)
        if dtype in FLOATS:
            yield Sample(T((2, 3), values=NAN_VALUES))
            yield Sample(T((2, 3), values=NAN_VALUES), 1, keepdim=True)
    return OpInfo(name, gen, dtypes=dtypes, grad=True, check_strides=False, tol=REDUCE_TOL, **kw)


REDUCE_TOL = {"float16": (2e-3, 1e-2), "bfloat16": (1.6e-2, 1e-1), "float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)}
LOGIT_SPECIAL = [0.0, 1.0, 0.5, 0.25, 1e-3, 0.999, -0.5, 1.5, float("nan"), INF]
V3 = dict(low=-2.0, high=2.0)


def linalg(name, *samples, **kw):
    """A torch.linalg function (ember.linalg), floating dtypes."""
    return OpInfo(name, fixed(*samples), torch_fn=f"linalg.{name.split('_', 1)[1]}", ember_fn=f"linalg.{name.split('_', 1)[1]}",
                  method=None, dtypes=kw.pop("dtypes", FLOATS), grad=True, check_strides=False, tol=REDUCE_TOL, **kw)


ENTRIES += [
    binary("xlogy", rhs_low=0.1, rhs_high=3.0),
    binary("hypot", FLOATS, scalars=()),
    unary("logit", low=0.05, high=0.95),
    OpInfo("logit_eps", fixed(Sample(T((3, 4), low=-0.5, high=1.5), 0.2), Sample(T((3, 4), "transposed"), eps=0.25),
                              Sample(T((len(LOGIT_SPECIAL),), values=LOGIT_SPECIAL), eps=0.01),
                              Sample(T((3, 4), low=0.1, high=0.9), eps=-1.0)),
           torch_fn="logit", grad=True),
    unary("signbit", grad=False, xfails=[XFail(
        "torch.from_numpy(np.array(opdb.SPECIAL)).to(torch.bfloat16)[2] is a NaN with the sign bit set (torch's "
        "vectorized float64 -> bfloat16 conversion; 4 elements give a positive NaN), so torch's signbit says True; "
        "ember's conversion keeps NaN positive", ("bfloat16",), sample="special")]),
    nan_reduction("nansum", tuple(NUMERIC) + ("bool",)),
    nan_reduction("nanmean", FLOATS),
    OpInfo("logcumsumexp", fixed(Sample(T((3, 4, 5)), 0), Sample(T((3, 4, 5), "transposed"), -1),
                                 Sample(T((3, 4, 5), "offset", low=-80, high=80), 1), Sample(T(()), 0), Sample(T((0, 3)), 1),
                                 Sample(T((6,), values=[-INF, -INF, 0.0, INF, -1e30, 2.0]), 0),
                                 Sample(T((6,), values=[-1000.0, -999.0, 50.0, float("nan"), 1.0, 2.0]), 0)),
           dtypes=FLOATS, grad=True, tol=REDUCE_TOL),
    OpInfo("diff", fixed(Sample(T((3, 4))), Sample(T((3, 4), "transposed"), 2), Sample(T((3, 4), "offset"), 1, 0),
                         Sample(T((3, 4)), 1, -1, T((3, 2), seed=1), T((3, 1), seed=2)),
                         Sample(T((3, 4)), 2, 0, prepend=T((1, 4), seed=1)), Sample(T((3, 4)), 0),
                         Sample(T((3, 4)), 6), Sample(T((5,), "expanded")), Sample(T((0, 3)), 1, 0),
                         Sample(T((3, 4)), 1, 0, T((3, 2), seed=1), raises=True), Sample(T(()), raises=True),
                         Sample(T((3, 4)), -1, raises=True)),
           grad=True),
    OpInfo("cross", fixed(Sample(T((3, 3)), T((3, 3), seed=1), dim=1), Sample(T((3, 4), "offset"), T((3, 4), seed=1), 0),
                          Sample(T((4, 3), "transposed"), T((1, 3), seed=1), -1), Sample(T((2, 3)), T((2, 3), seed=1), 0,
                                                                                      raises=True)),
           dtypes=NUMERIC, grad=True),
    linalg("linalg_cross", Sample(T((4, 3)), T((4, 3), seed=1)), Sample(T((3, 2)), T((3, 1), seed=1), dim=0),
           Sample(T((2, 4)), T((2, 4), seed=1), raises=True), dtypes=NUMERIC),
    # torch.kron views the product: a transposed operand can make that fail (its out= form copies)
    OpInfo("kron", fixed(Sample(T((2, 3)), T((3, 2), seed=1)), Sample(T((2, 3), "transposed"), T((4,), "offset", seed=1),
                                                                     raises=True),
                         Sample(T(()), T((2, 2), seed=1)), Sample(T((2, 1, 2)), T((3, 2), seed=1)),
                         Sample(T((0, 2)), T((2, 2), seed=1))),
           grad=True),
    OpInfo("tensordot", fixed(Sample(T((2, 3, 4)), T((3, 4, 5), seed=1)), Sample(T((2, 3, 4), "transposed"), T((4, 5), seed=1), 1),
                              Sample(T((3, 4)), T((4, 3), seed=1), ([1], [0])), Sample(T((3,)), T((4,), seed=1), 0),
                              Sample(T((3, 4)), T((5, 4), seed=1), ([0], [0]), raises=True)),
           dtypes=NUMERIC, grad=True, tol=MM_TOL),
    OpInfo("dist", fixed(Sample(T((3, 4)), T((3, 4), seed=1)), Sample(T((3, 4), "transposed"), T((4,), seed=1), 1),
                         Sample(T((3, 4)), T((3, 4), "offset", seed=1), INF), Sample(T((3, 4)), T((3, 4), seed=1), 3),
                         Sample(T((3, 4)), T((3, 4), seed=1), 0), Sample(T(()), T((), seed=1)),
                         Sample(T((3, 4)), T((2, 4), seed=1), raises=True)),
           dtypes=FLOATS, grad=True, tol=REDUCE_TOL, xfails=[P0_GRAD]),
    OpInfo("cdist", fixed(Sample(T((4, 3)), T((5, 3), seed=1)), Sample(T((4, 3), "transposed"), T((5, 3), seed=1), 1.0),
                          Sample(T((2, 4, 3)), T((5, 3), seed=1), INF), Sample(T((4, 3)), T((5, 3), seed=1), 3.0),
                          Sample(T((4, 3)), T((5, 3), seed=1), 0.0), Sample(T((30, 3)), T((5, 3), seed=1)),
                          Sample(T((4, 3)), T((5, 3), seed=1), compute_mode="use_mm_for_euclid_dist"),
                          Sample(T((30, 3)), T((5, 3), seed=1), compute_mode="donot_use_mm_for_euclid_dist"),
                          Sample(T((2, 1, 4, 3)), T((3, 5, 3), seed=1)), Sample(T((0, 3)), T((5, 3), seed=1)),
                          Sample(T((4, 3)), T((5, 2), seed=1), raises=True), Sample(T((3,)), T((5, 3)), raises=True)),
           dtypes=("float32", "float64"), grad=True, tol=REDUCE_TOL),
    linalg("linalg_vector_norm", Sample(T((3, 4, 5))), Sample(T((3, 4, 5), "transposed"), 1),
           Sample(T((3, 4, 5), "offset"), INF, (0, 2)), Sample(T((3, 4, 5)), -INF, -1, True), Sample(T((3, 5)), 0),
           Sample(T((3, 4, 5)), 3.5, dim=1, dtype=D("float64")), Sample(T((3, 4, 5)), 0.5, keepdim=True), Sample(T(())),
           Sample(T((0, 3)), 2, 1), Sample(T((0, 3)), INF, raises=True), xfails=[P0_GRAD]),
    linalg("linalg_matrix_norm", Sample(T((3, 4))), Sample(T((2, 3, 4), "transposed"), 1), Sample(T((3, 4)), -1),
           Sample(T((3, 4), "offset"), INF), Sample(T((2, 3, 4)), -INF, (0, 2), True), Sample(T((2, 3, 4)), "fro", (2, 0)),
           Sample(T((3, 4)), 1, keepdim=True), Sample(T((4,)), raises=True), Sample(T((3, 4)), 3, raises=True)),
    # the norms of singular values (torch refuses float16 and bfloat16 for them)
    OpInfo("linalg_matrix_norm_svd", fixed(Sample(T((3, 4)), "nuc"), Sample(T((4, 3), "transposed"), 2),
                                           Sample(T((2, 3, 4)), -2, (2, 0), True), Sample(T((3, 3), "offset"), -2),
                                           Sample(T((2, 4, 3)), "nuc", (0, 1), True)),
           torch_fn="linalg.matrix_norm", ember_fn="linalg.matrix_norm", method=None, dtypes=("float32", "float64"),
           grad=True, check_strides=False, tol=REDUCE_TOL),
    linalg("linalg_svdvals", Sample(T((3, 4))), Sample(T((2, 4, 3), "transposed")), Sample(T((5, 5), "offset")),
           Sample(T((0, 3))), Sample(T((4,)), raises=True), dtypes=("float32", "float64")),
    linalg("linalg_norm", Sample(T((3, 4))), Sample(T((3, 4)), 1), Sample(T((4,), "offset"), INF),
           Sample(T((3, 4, 5), "transposed"), 3, 1), Sample(T((3, 4, 5)), -INF, (0, 1), True), Sample(T((3, 4)), "fro"),
           Sample(T((2, 3, 4)), dim=(1, 2)), Sample(T((2, 3, 4))), Sample(T((2, 3, 4)), 2, raises=True)),
    OpInfo("linalg_norm_svd", fixed(Sample(T((3, 4)), "nuc"), Sample(T((3, 4)), 2), Sample(T((2, 3, 4)), -2, (1, 2))),
           torch_fn="linalg.norm", ember_fn="linalg.norm", method=None, dtypes=("float32", "float64"), grad=True,
           check_strides=False, tol=REDUCE_TOL),
]

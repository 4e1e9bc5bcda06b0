"""Op database entries of the math area (issue 10): einsum, logit, xlogy, hypot, signbit, nansum, nanmean,
logcumsumexp, diff, cross, kron, tensordot, cdist, dist and the linalg norms."""
from opdb import FLOATS, NUMERIC, OpInfo, Sample, T, fixed

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

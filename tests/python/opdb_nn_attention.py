"""Op database entries of scaled_dot_product_attention (issue 11, `nnnorm`); dropout masks are in
test_nn_attention.py."""
from opdb import FLOATS, OpInfo, Sample, T, fixed

TOL = {"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2), "float32": (1e-5, 1e-5), "float64": (1e-10, 1e-12)}
Q, K, V = T((2, 3, 5, 4)), T((2, 3, 6, 4), seed=1), T((2, 3, 6, 7), seed=2)
BOOL_MASK = T((5, 6), dtype="bool", values=[1, 0, 1, 1, 0, 1] * 4 + [0] * 6)  # the last row masked everywhere

ENTRIES = [
    OpInfo("scaled_dot_product_attention", fixed(
        Sample(Q, K, V),
        Sample(T((2, 3, 5, 4), "transposed"), K, T((2, 3, 6, 7), "offset", seed=2), is_causal=True),
        Sample(Q, K, V, BOOL_MASK),
        Sample(Q, K, V, T((2, 1, 5, 6), seed=3)),
        Sample(T((5, 4)), T((6, 4), seed=1), T((6, 3), seed=2), scale=0.3),
        Sample(Q, T((2, 1, 6, 4), seed=1), T((2, 1, 6, 7), seed=2), enable_gqa=True),
        Sample(Q, T((2, 3, 6, 5), seed=1), V, raises=True),
        Sample(Q, K, V, BOOL_MASK, is_causal=True, raises=True)),
        torch_fn="nn.functional.scaled_dot_product_attention", ember_fn="nn.functional.scaled_dot_product_attention",
        method=None, dtypes=FLOATS, grad=True, tol=TOL, check_strides=False),
]

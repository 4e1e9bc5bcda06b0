"""Known bugs the CI fuzz run tolerates while their fixes land: one entry per root cause, with a reproducer
and the issue text. Remove an entry when its fix is merged (the CI run then guards it).

An entry matches a failure whose kind is in `kinds`, whose op is in `ops` and whose failing statement contains
one of `texts` (an empty texts tuple matches any statement).
"""
import dataclasses

ELEMENTWISE = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1",
               "floor", "frac", "log", "log10", "log1p", "log2", "neg", "reciprocal", "relu", "round", "rsqrt",
               "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "bitwise_not",
               "logical_not", "isnan", "isinf", "isfinite", "nan_to_num", "add", "sub", "mul", "div", "true_divide",
               "floor_divide", "remainder", "fmod", "pow", "atan2", "maximum", "minimum", "fmax", "fmin", "eq", "ne",
               "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
               "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "where", "clamp", "lerp", "masked_fill",
               "isclose", "to")
SIZED = ("zeros", "ones", "full", "empty", "rand", "randn", "randint", "new_zeros", "new_ones", "new_full",
         "new_empty", "eye", "arange", "linspace", "randperm", "resize_", "expand", "empty_strided")


@dataclasses.dataclass(frozen=True)
class Known:
    kinds: tuple
    ops: tuple
    texts: tuple
    repro: str
    issue: str


KNOWN = [
    Known(("crash", "hang"), SIZED, ("2**6", "2**31"), "ember.zeros(2**62); ember.eye(2**63-1) (hangs)",
          "core: huge sizes are not overflow-checked (SIGSEGV instead of 'Storage size calculation overflowed')"),
    Known(("crash",), SIZED, ("(1,)*1000",), "ember.zeros((1,) * 1000)",
          "core: more than 64 dims aborts (nanobind critical error); torch raises ValueError 'number of dimensions "
          "must be within [0, 64]'"),
    Known(("crash",), ("as_strided", "arange"), ("as_strided(",), "ember.arange(5.).as_strided((3,), (2**61,))[-1]",
          "core: the as_strided bounds check overflows"),
    Known(("crash",), ("floor_divide", "remainder", "fmod"), ("-1",),
          "ember.tensor([-2**31], dtype=ember.int32) // -1",
          "numerics: INT_MIN // -1, % -1 and fmod(INT_MIN, -1) raise SIGFPE"),
    Known(("crash", "value"), ("arange",), ("dtype=m.int", "dtype=m.uint8", "70000"),
          "ember.arange(0, 10, 0.3, dtype=ember.int64) (SIGFPE); ember.arange(-2.5, 12, 0.5, dtype=ember.int16)",
          "core: arange with an integer dtype and a fractional step (torch casts start and step to the dtype "
          "first); float16 arange past 2048 differs"),
    Known(("crash", "hang"), ("tensor", "as_tensor"), ("m.zeros(10**6)",),
          "ember.tensor([ember.zeros(1), ember.zeros(10**6)])",
          "pysurface: tensor() from a list of tensors of different sizes overflows the heap"),
    Known(("hang",), ("tensor", "as_tensor"), ("l.append(l)",), "l = []; l.append(l); ember.tensor(l)",
          "pysurface: a self-containing list loops until memory runs out"),
    Known(("dtype", "shape", "value"), ("cumsum", "cumprod", "softmax", "log_softmax"), (),
          "ember.cumsum(ember.tensor(5.), 0)",
          "numerics: cumsum/cumprod/softmax/log_softmax of 0-dim inputs return garbage (bool dtype, shape (1,))"),
    Known(("value",), ("randn", "randn_like"), (), "ember.manual_seed(67); ember.randn(20, dtype=ember.float16)",
          "random streams: half-precision normal draws of a size that is not a multiple of 16 differ from torch's in "
          "the last block (multiples of 16, rand, *_like layouts and fill order match)"),
    Known(("shape", "value", "stride"), ("getitem",), (),
          "x = ember.zeros(3, 4, 5); x[1, None, ember.tensor([0, 1])].shape",
          "indexing: int + None + tensor index orders dims wrongly; row gathers of 2/4/8-byte rows; result layout"),
    Known(("type",), ("add",), (".numpy()",), "x + x.numpy()",
          "pysurface: tensor + ndarray returns an ndarray (torch: a tensor)"),
]


def match(failure):
    """The Known entry a failure (runner.Failure) matches, or None."""
    src = failure.program[failure.index]["src"] if failure.program else ""
    for k in KNOWN:
        if failure.kind in k.kinds and failure.op in k.ops and (not k.texts or any(t in src for t in k.texts)):
            return k
    return None

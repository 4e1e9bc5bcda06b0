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
    Known(("value",), ("linspace",), ("dtype=m.int", "dtype=m.uint8"), "ember.linspace(-1.25, 2, 4, dtype=ember.int64)",
          "linspace with an integer dtype rounds differently: [-1, 0, 0, 2] where torch gives [-1, 0, 1, 2]"),
    Known(("value",), ("randn", "randn_like", "rand", "rand_like"), (),
          "ember.manual_seed(0); ember.randn(4, 4, dtype=ember.float16); "
          "ember.rand_like(ember.zeros(3, 2).t())",
          "random streams: half-precision normal draws differ from torch's; rand_like/randn_like of a permuted input "
          "fill in logical order where torch keeps the input's layout (preserve_format) and fills in memory order"),
    Known(("requires_grad",), ("to",), (), "ember.tensor([1.5], requires_grad=True).long().requires_grad",
          "autograd: a conversion to an integer dtype keeps requires_grad=True (torch: False)"),
    Known(("requires_grad",), ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"),
          ("_(",), "(ember.tensor([1.], requires_grad=True) * 2).ge_(0).requires_grad",
          "autograd: an in-place comparison or logical op on a graph tensor drops requires_grad (torch keeps it)"),
    Known(("stride",), ELEMENTWISE, (), "ember.isnan(ember.zeros(2, 3).as_strided((2, 3), (1, 2))).stride()",
          "layout: elementwise results of non-dense or permuted inputs are contiguous; torch follows the inputs' "
          "stride order (TensorIterator) even when they are not dense"),

    Known(("value",), ("randn", "randn_like"), (), "ember.manual_seed(67); ember.randn(20, dtype=ember.float16)",
          "random streams: half-precision normal draws of a size that is not a multiple of 16 differ from torch's in "
          "the last block (multiples of 16, rand, *_like layouts and fill order match)"),
    Known(("shape", "value", "stride"), ("getitem",), (),
          "x = ember.zeros(3, 4, 5); x[1, None, ember.tensor([0, 1])].shape",
          "indexing: int + None + tensor index orders dims wrongly; row gathers of 2/4/8-byte rows; result layout"),
    Known(("type",), ("add",), (".numpy()",), "x + x.numpy()",
          "pysurface: tensor + ndarray returns an ndarray (torch: a tensor)"),
    Known(("value",), ("matmul", "mm", "bmm", "mv", "dot", "inner", "outer", "addmm", "addmv", "baddbmm"), (),
          "ember.mm(ember.tensor([[0., 1.]]), ember.tensor([[float('-inf'), 1.], [1., 1.]]))",
          "matmul: a zero times inf/nan is skipped in every path and dtype ([[1, 1]]; torch [[nan, 1]])"),
    Known(("value",), ("index_select",), (), "ember.tensor([[2.], [2.5], [-3.5]], dtype=ember.float16).t()"
          ".index_select(-1, ember.tensor([1, 1]))",
          "indexing: index_select on transposed or narrow-row inputs returns garbage"),
    Known(("dtype",), ("lerp", "clamp"), (), "ember.lerp(ember.tensor(-2., dtype=ember.float16), "
          "ember.tensor(-3., dtype=ember.float16), -0.95).dtype",
          "promotion with 0-dim float16/bfloat16 operands and Python scalars: lerp gives float32 (torch float16), "
          "clamp(int16, f16 0-dim, 0) float16 (torch float32)"),
    Known(("value",), ("var", "std", "var_mean", "std_mean"), (), "ember.var_mean(ember.tensor([math.inf] * 3))",
          "numerics: var/std of infs give inf (torch nan); float16 var/std accumulate in float16"),
]


def match(failure):
    """The Known entry a failure (runner.Failure) matches, or None."""
    src = failure.program[failure.index]["src"] if failure.program else ""
    for k in KNOWN:
        if failure.kind in k.kinds and failure.op in k.ops and (not k.texts or any(t in src for t in k.texts)):
            return k
    return None

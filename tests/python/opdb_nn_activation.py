"""Op database entries of the nn activations (issue 11, ember.nn.functional): every dtype torch supports, layouts,
0-dim, empty and special values, gradients (gradcheck in float64). inplace=True, the F.*_ functions, errors and node
names are in test_nn_activation.py."""
from opdb import D, DTYPES, FLOATS, NUMERIC, OpInfo, Sample, T, XFail, fixed, unary

SIGNED = ("int8", "int16", "int32", "int64") + FLOATS


# The F functions of torch._C._nn whose out= ember.nn.functional has.
WITH_OUT = ("gelu", "softplus")


def act(name, dtypes=FLOATS, fn=None, **kw):
    """F.<fn> of one tensor (kw: its other arguments), over unary_samples."""
    fn = fn or name
    op = unary(name, dtypes, torch_fn=f"nn.functional.{fn}", ember_fn=f"nn.functional.{fn}",
               sample_kwargs=kw.pop("args", {}), **kw)
    return op if fn in WITH_OUT else no_out(op)


def no_out(op):
    """torch's F functions from torch._C._nn take out=; ember.nn.functional's do not, but for WITH_OUT (a known gap)."""
    if "out" in op.forms:
        op.missing.add("out")
    return op


def along(name, *extra):
    """softmax-like: along a dim, with dtype=."""
    samples = [Sample(T((3, 4)), 1), Sample(T((3, 4), "transposed"), 0), Sample(T((2, 3, 4), "offset"), -1),
               Sample(T(()), 0), Sample(T((0, 3)), 1), Sample(T((3, 4)), 1, dtype=D("float64")), *extra]
    return no_out(OpInfo(f"F_{name}", fixed(*samples), torch_fn=f"nn.functional.{name}", ember_fn=f"nn.functional.{name}",
                         dtypes=FLOATS, grad=True, check_strides=False))




def clamp_empty(dtypes):
    return XFail("x = ember.from_numpy(np.zeros((0, 3))); F.hardtanh(x).stride() is (3, 1), torch's (0, 0) (torch's "
                 "clamp kernel keeps an empty input's strides)", dtypes, sample="contiguous0x3", forms=("fn",))



ENTRIES = [
    act("F_relu", NUMERIC, fn="relu"), act("relu6", NUMERIC, xfails=[clamp_empty(NUMERIC)]),
    act("hardtanh", SIGNED, xfails=[clamp_empty(SIGNED)]),
    act("hardtanh_args", NUMERIC, fn="hardtanh", args={"min_val": -0.5, "max_val": 2.0},
        xfails=[clamp_empty(NUMERIC)]),
    act("leaky_relu"), act("leaky_relu_args", fn="leaky_relu", args={"negative_slope": 0.3}),
    act("elu"), act("elu_args", fn="elu", args={"alpha": 0.5}), act("selu"), act("celu"),
    act("celu_args", fn="celu", args={"alpha": 2.5}),
    act("F_gelu", fn="gelu"), act("F_gelu_tanh", fn="gelu", args={"approximate": "tanh"}),
    act("F_silu", fn="silu"), act("mish"), act("F_sigmoid", DTYPES, fn="sigmoid"), act("F_tanh", DTYPES, fn="tanh"),
    act("F_softplus", fn="softplus", args={"beta": 2.0, "threshold": 1.0}),
    act("softsign", NUMERIC), act("hardswish"), act("hardsigmoid"),
    act("threshold", SIGNED, args={"threshold": 0.5, "value": -2.0}),
    act("threshold_positive", NUMERIC, fn="threshold", args={"threshold": 1.5, "value": 7.0}),
    act("logsigmoid"), act("tanhshrink", NUMERIC), act("softshrink"), act("softshrink_args", fn="softshrink",
                                                                            args={"lambd": 1.5}),
    act("hardshrink"), act("hardshrink_args", fn="hardshrink", args={"lambd": 1.5}),
    act("rrelu_eval", fn="rrelu", args={"lower": 0.1, "upper": 0.3}),
    along("softmax"), along("log_softmax"), along("softmin"),
    no_out(OpInfo("glu", fixed(Sample(T((3, 4))), Sample(T((4, 3), "transposed"), 0), Sample(T((2, 6, 2), "offset"), 1),
                        Sample(T((0, 4))), Sample(T((3, 5)), raises=True), Sample(T(()), raises=True)),
           torch_fn="nn.functional.glu", ember_fn="nn.functional.glu", dtypes=FLOATS, grad=True)),
    OpInfo("prelu", fixed(Sample(T((3, 4)), T((4,), seed=1)), Sample(T((3, 4), "transposed"), T((1,), seed=1)),
                          Sample(T((2, 3, 4, 2), "offset"), T((3,), seed=1)), Sample(T((5,)), T((1,), seed=1)),
                          Sample(T(()), T((), seed=1)), Sample(T((0, 3)), T((3,), seed=1)),
                          Sample(T((3, 4)), T((3,), seed=1), raises=True),
                          Sample(T((3, 4)), T((2, 2), seed=1), raises=True)),
           torch_fn="nn.functional.prelu", ember_fn="nn.functional.prelu", dtypes=FLOATS, grad=True,
           xfails=[XFail("F.prelu(ember.from_numpy(np.zeros((0, 3))), ember.ones(3)).stride() is (3, 1), torch's (0, 0)",
                         FLOATS, sample="contiguous0x3", forms=("fn",))]),
]

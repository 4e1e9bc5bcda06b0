"""Op database entries of convolution and pooling (issue 11, nnconv): conv1d/2d/3d, conv_transpose1d/2d,
max_pool1d/2d, avg_pool1d/2d, adaptive_avg/max_pool1d/2d. Samples cover batch 1, unbatched inputs, groups,
dilation, stride, padding modes, ceil_mode and non-contiguous inputs and weights."""
from opdb import FLOATS, NUMERIC, OpInfo, Sample, T

# float32 convolutions sum in another order than torch's (oneDNN's blocking): tolerances of a reduction.
CONV_TOL = {"float16": (2e-3, 1e-2), "bfloat16": (1.6e-2, 1e-1), "float32": (1e-4, 1e-4), "float64": (1e-12, 1e-12)}
F = "nn.functional."


SMALL_INTS = ("uint8", "int8", "int16", "int32")


def conv(name, *samples, **kw):
    """torch's integer kernels other than int64 do only undilated, untransposed convolutions (else they raise)."""
    transposed, dil_pos = "transpose" in name, 7 if "transpose" in name else 5

    def dilated(s):
        d = s.kwargs.get("dilation", s.args[dil_pos] if len(s.args) > dil_pos else 1)
        return d not in (1, (1,), (1, 1), (1, 1, 1))

    def gen(dtype):
        for s in samples:
            raises = s.raises or (dtype in SMALL_INTS and (transposed or dilated(s)))
            yield Sample(*s.args, raises=raises, **s.kwargs)
    return OpInfo(name, gen, torch_fn=name, dtypes=NUMERIC, grad=True, tol=CONV_TOL, method=None, **kw)


def w(*shape, layout="contiguous", seed=1):
    return T(shape, layout, low=-1.0, high=1.0, seed=seed)


ENTRIES = [
    conv("conv2d",
         Sample(T((2, 4, 7, 6)), w(6, 4, 3, 3), T((6,), seed=2)),
         Sample(T((1, 4, 7, 6)), w(6, 2, 3, 2), None, 2, 1, 1, 2),
         Sample(T((2, 4, 9, 8), "transposed"), w(4, 4, 3, 3, layout="transposed"), T((4,), seed=2), stride=(2, 1),
                padding=(1, 2), dilation=(2, 1)),
         Sample(T((4, 7, 6), "offset"), w(3, 4, 1, 3, layout="offset"), T((3,), seed=2), padding="same"),
         Sample(T((2, 4, 7, 6)), w(8, 1, 2, 3), None, padding="same", groups=4),
         Sample(T((2, 4, 7, 6)), w(6, 4, 3, 3), None, padding="valid", stride=2),
         Sample(T((2, 4, 5, 5), "expanded"), w(6, 4, 2, 2), T((6,), seed=2), stride=3),
         Sample(T((0, 4, 5, 5)), w(6, 4, 2, 2), T((6,), seed=2)),
         Sample(T((2, 4, 5, 5)), w(6, 4, 7, 7), raises=True),
         Sample(T((2, 4, 5, 5)), w(6, 3, 3, 3), raises=True)),
    conv("conv1d",
         Sample(T((2, 4, 9)), w(6, 4, 3), T((6,), seed=2)),
         Sample(T((4, 9), "transposed"), w(6, 2, 3, layout="transposed"), None, 2, 2, 2, 2),
         Sample(T((1, 4, 10), "offset"), w(4, 4, 4), T((4,), seed=2), padding="same", dilation=3)),
    conv("conv3d",
         Sample(T((2, 2, 5, 4, 6)), w(4, 2, 3, 2, 3), T((4,), seed=2)),
         Sample(T((1, 4, 5, 5, 5), "transposed"), w(4, 2, 2, 2, 2), None, (1, 2, 2), 1, (2, 1, 1), 2)),
    conv("conv_transpose2d",
         Sample(T((2, 4, 5, 4)), w(4, 3, 3, 3), T((3,), seed=2)),
         Sample(T((1, 4, 5, 4), "transposed"), w(4, 2, 3, 2), None, 2, 1, 1, 2),
         Sample(T((4, 5, 4), "offset"), w(4, 3, 2, 3, layout="offset"), T((3,), seed=2), stride=(2, 3),
                padding=(0, 1), dilation=(2, 1)),
         Sample(T((2, 4, 5, 4)), w(4, 3, 3, 3), None, stride=3, padding=1, output_padding=(2, 1)),
         Sample(T((2, 4, 5, 4)), w(3, 3, 3, 3), raises=True)),
    conv("conv_transpose1d",
         Sample(T((2, 4, 7)), w(4, 3, 3), T((3,), seed=2)),
         Sample(T((4, 7), "transposed"), w(4, 1, 4), None, 3, 2, 1, 4, 2)),
]

POOL_IN = T((2, 3, 9, 8))
POOL_SAMPLES = [
    Sample(POOL_IN, 2), Sample(T((1, 3, 9, 8), "transposed"), (3, 2), (2, 1), 1),
    Sample(T((3, 9, 8), "offset"), 3, 2, 1, ceil_mode=True), Sample(POOL_IN, (2, 3), (3, 2), (1, 0), ceil_mode=True),
    Sample(T((2, 3, 5, 5), "expanded"), 5), Sample(T((0, 3, 9, 8)), 2), Sample(POOL_IN, 20, raises=True),
]


def pool(name, samples, dtypes, **kw):
    return OpInfo(name, lambda dtype: iter(samples), torch_fn=F + name, ember_fn=F + name, dtypes=dtypes, grad=True,
                  method=None, check_strides=False, **kw)


ENTRIES += [
    pool("max_pool2d", POOL_SAMPLES + [Sample(POOL_IN, 3, 2, 1, 2), Sample(POOL_IN, 3, 2, 1, (1, 2), True)], NUMERIC),
    pool("max_pool2d_with_indices", [Sample(POOL_IN, 3, 2, 1, 2, True)], NUMERIC),
    # without indices torch's max_pool1d is its own kernel, for floats only
    pool("max_pool1d", [Sample(T((2, 3, 9)), 2), Sample(T((3, 9), "transposed"), 3, 2, 1, 2, True),
                        Sample(T((2, 3, 9)), 2, return_indices=True)], FLOATS),
    pool("max_pool1d_with_indices", [Sample(T((2, 3, 9)), 2), Sample(T((3, 9), "transposed"), 3, 2, 1, 2, True)],
         NUMERIC),
    pool("avg_pool2d", POOL_SAMPLES + [Sample(POOL_IN, 3, 2, 1, count_include_pad=False),
                                       Sample(POOL_IN, 3, 2, 1, True, False),
                                       Sample(POOL_IN, 3, 2, 1, True, True, 5)], FLOATS + ("int64",)),
    pool("avg_pool1d", [Sample(T((2, 3, 9)), 2), Sample(T((3, 9), "transposed"), 3, 2, 1, True, False)],
         FLOATS + ("int64",)),
    pool("adaptive_avg_pool2d", [Sample(POOL_IN, 3), Sample(T((3, 9, 8), "transposed"), (4, None)),
                                 Sample(POOL_IN, (5, 7)), Sample(POOL_IN, 1), Sample(POOL_IN, (12, 11))], FLOATS),
    pool("adaptive_avg_pool1d", [Sample(T((2, 3, 9)), 4), Sample(T((3, 9), "offset"), 1)], FLOATS),
    pool("adaptive_max_pool2d", [Sample(POOL_IN, 3), Sample(T((3, 9, 8), "transposed"), (4, None)),
                                 Sample(POOL_IN, (5, 7), True)], FLOATS),
    pool("adaptive_max_pool1d", [Sample(T((2, 3, 9)), 4), Sample(T((3, 9), "offset"), 2, True)], FLOATS),
]

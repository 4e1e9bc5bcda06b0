"""Op database entries of pad, embedding, one_hot, normalize, cosine_similarity and pairwise_distance (issue 11,
`nnnorm`)."""
from opdb import DTYPES, FLOATS, OpInfo, Sample, T, fixed

TOL = {"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2), "float32": (1e-5, 1e-5), "float64": (1e-10, 1e-12)}


def functional(name, *samples, dtypes=FLOATS, **kw):
    gen = samples[0] if callable(samples[0]) else fixed(*samples)
    return OpInfo(name, gen, torch_fn=f"nn.functional.{name}", ember_fn=f"nn.functional.{name}", method=None,
                  dtypes=dtypes, grad=True, tol=TOL, **kw)


def index(values, shape):
    return T(shape, dtype="int64", values=values)


NON_BOOL = tuple(d for d in DTYPES if d != "bool")
IDX = index([1, 2, 4, 1, 4, 3, 2, 9], (2, 4))
CLASSES = T((2, 4), values=[1, 2, 4, 1, 4, 3, 2, 9])  # of the case dtype: one_hot takes int64 only
PAD_SAMPLES = [
    Sample(T((2, 3, 4)), (1, 2)),
    Sample(T((2, 3, 4), "transposed"), (1, 2, 0, 1), value=2.5),
    Sample(T((2, 3, 4, 5), "offset"), (1, 1, -1, 2, 0, 1, 1, 0)),
    Sample(T((2, 3, 4)), (-1, -2)),
    Sample(T((3, 4), "expanded"), (2, 1), mode="reflect"),
    Sample(T((2, 3, 4, 5)), (1, 2, 3, 0), mode="reflect"),
    Sample(T((2, 3, 4, 5), "transposed"), (1, 2, 1, 0, 1, 1), mode="reflect"),
    Sample(T((2, 3, 4)), (-1, 2), mode="reflect"),
    Sample(T((2, 3, 4)), (4, 1), mode="reflect", raises=True),
    Sample(T((2, 3, 4)), (5, 2), mode="replicate"),
    Sample(T((2, 3, 4, 5), "offset"), (1, 2, 3, 0), mode="replicate"),
    Sample(T((1, 2, 3, 4, 5)), (1, 2, 1, 0, 1, 1), mode="replicate"),
    Sample(T((2, 3, 4)), (2, 1), mode="circular"),
    Sample(T((2, 3, 4, 5), "transposed"), (1, 2, -1, 3), mode="circular"),
    Sample(T((2, 3, 4, 5)), (1, 2, 1, 0, 1, 1), mode="circular"),
    Sample(T((2, 3, 4, 5)), (1, 2), mode="circular", raises=True),
    Sample(T((2, 3)), (1, 2, 3), raises=True),
    Sample(T((2, 3)), (1, 1), mode="reflect", value=1.0, raises=True),
    Sample(T((2, 3)), (1, 1), mode="wrap", raises=True),
]


def pad_samples(dtype):
    """torch's reflection and replication kernels refuse bool."""
    for s in PAD_SAMPLES:
        unsupported = dtype == "bool" and s.kwargs.get("mode") in ("reflect", "replicate")
        yield Sample(*s.args, raises=s.raises or unsupported, **s.kwargs) if unsupported else s


ENTRIES = [
    functional("pad", pad_samples, dtypes=DTYPES),
    functional("embedding",
               Sample(IDX, T((10, 4))),
               Sample(index([3, 0, 3], (3,)), T((5, 3), "transposed"), padding_idx=3),
               Sample(IDX, T((10, 4), "offset"), padding_idx=-1, scale_grad_by_freq=True),
               Sample(index([], (0, 2)), T((4, 3))),
               Sample(index([4], ()), T((5, 2))),
               Sample(index([1, 7], (2,)), T((5, 2)), raises=True),
               dtypes=DTYPES),
    OpInfo("one_hot", fixed(Sample(CLASSES), Sample(CLASSES, 12), Sample(T((0,)), 3), Sample(CLASSES, 5, raises=True),
                            Sample(T((0,)), raises=True), Sample(T((2,), values=[2, -1]), raises=True)),
           torch_fn="nn.functional.one_hot", ember_fn="nn.functional.one_hot", method=None, dtypes=("int64",)),
    functional("normalize", Sample(T((3, 4))), Sample(T((2, 3, 4), "transposed"), 1.0, -1),
               Sample(T((3, 4), "offset"), 3.0, 0, 1e-3), Sample(T((0, 3)))),
    functional("cosine_similarity", Sample(T((3, 4)), T((3, 4), seed=1)),
               Sample(T((2, 3, 4), "transposed"), T((1, 3, 4), seed=1), -1),
               Sample(T((3, 4), "offset"), T((3, 4), "expanded", seed=1), 0, 0.5)),
    functional("pairwise_distance", Sample(T((3, 4)), T((3, 4), seed=1)),
               Sample(T((2, 3, 4), "transposed"), T((3, 4), seed=1), 1.0, keepdim=True),
               Sample(T((4,), "offset"), T((4,), seed=1), 3.0, 1e-3), dtypes=NON_BOOL),
]

ENTRIES += [
    OpInfo("pixel_shuffle", fixed(Sample(T((2, 8, 3, 3)), 2), Sample(T((8, 3, 2), "transposed"), 2),
                                  Sample(T((2, 1, 9, 2, 2), "offset"), 3), Sample(T((2, 4, 3, 3), "expanded"), 1),
                                  Sample(T((2, 6, 3, 3)), 2, raises=True), Sample(T((4, 3)), 2, raises=True)),
           torch_fn="pixel_shuffle", method=None, dtypes=DTYPES, grad=True, tol=TOL),
    OpInfo("pixel_unshuffle", fixed(Sample(T((2, 2, 4, 6)), 2), Sample(T((3, 6, 3), "transposed"), 3),
                                    Sample(T((2, 1, 1, 4, 4), "offset"), 2), Sample(T((2, 2, 5, 4)), 2, raises=True),
                                    Sample(T((2, 4, 4)), 0, raises=True)),
           torch_fn="pixel_unshuffle", method=None, dtypes=DTYPES, grad=True, tol=TOL),
]

NO_INTS = ("bool",) + FLOATS  # torch's im2col/col2im kernels: floating types and bool
ENTRIES += [
    OpInfo("nn_unfold", fixed(Sample(T((2, 3, 5, 6)), 2), Sample(T((3, 5, 6), "transposed"), (2, 3), 2, 1, (2, 1)),
                           Sample(T((1, 2, 4, 4), "offset"), 3, padding=1, stride=2),
                           Sample(T((2, 3, 5, 6)), 7, raises=True), Sample(T((2, 3, 5, 6)), 0, raises=True),
                           Sample(T((5, 6)), 2, raises=True)),
           torch_fn="nn.functional.unfold", ember_fn="nn.functional.unfold", method=None, dtypes=NO_INTS, grad=True,
           tol=TOL),
    OpInfo("fold", fixed(Sample(T((2, 12, 20)), (5, 6), 2), Sample(T((12, 20), "transposed"), (5, 6), 2),
                         Sample(T((1, 18, 8), "offset"), (4, 4), 3, padding=1, stride=(1, 2), dilation=1),
                         Sample(T((2, 12, 20)), (5, 7), 2, raises=True), Sample(T((2, 11, 20)), (5, 6), 2, raises=True)),
           torch_fn="nn.functional.fold", ember_fn="nn.functional.fold", method=None, dtypes=NO_INTS, grad=True,
           tol=TOL),
]

ENTRIES += [
    OpInfo("interpolate", lambda dtype: iter(
        [Sample(T((2, 3, 4, 5)), scale_factor=2), Sample(T((2, 3, 4, 5), "transposed"), size=(7, 3)),
         Sample(T((2, 3, 5), "offset"), size=8), Sample(T((1, 2, 3, 4, 5)), scale_factor=(2, 1.5, 0.5)),
         Sample(T((2, 3, 4, 5)), size=(7, 3), mode="nearest-exact"),
         Sample(T((2, 3, 4, 5)), size=3, align_corners=True, raises=True),
         Sample(T((2, 3, 4, 5)), size=3, scale_factor=2, raises=True)] +
        ([Sample(T((2, 3, 4, 5)), size=(7, 9), mode="bilinear"),
          Sample(T((2, 3, 4, 5), "expanded"), size=(7, 9), mode="bilinear", align_corners=True),
          Sample(T((2, 3, 8, 9)), scale_factor=0.6, mode="bilinear", recompute_scale_factor=True),
          Sample(T((2, 3, 5)), size=9, mode="linear"), Sample(T((1, 2, 3, 4, 5)), size=(4, 5, 3), mode="trilinear"),
          Sample(T((2, 3, 4, 5)), size=3, mode="linear", raises=True)] if dtype in FLOATS else [])),
        torch_fn="nn.functional.interpolate", ember_fn="nn.functional.interpolate", method=None,
        dtypes=FLOATS + ("uint8",), grad=True, tol=TOL),
]

BAG_IDX = index([1, 2, 4, 5, 4, 3, 2, 9], (8,))
BAG_OFFSETS = index([0, 4, 4], (3,))
ENTRIES += [
    functional("embedding_bag",
               Sample(BAG_IDX, T((10, 3)), BAG_OFFSETS),
               Sample(BAG_IDX, T((10, 3), "transposed"), BAG_OFFSETS, mode="sum"),
               Sample(BAG_IDX, T((10, 3), "offset"), BAG_OFFSETS, mode="max"),
               Sample(index([1, 2, 4, 5, 4, 3, 2, 9], (2, 4)), T((10, 3)), mode="sum", padding_idx=4),
               Sample(BAG_IDX, T((10, 3)), index([0, 3, 8], (3,)), mode="mean", include_last_offset=True),
               Sample(BAG_IDX, T((10, 3)), BAG_OFFSETS, mode="sum", per_sample_weights=T((8,), seed=4)),
               Sample(BAG_IDX, T((10, 3)), BAG_OFFSETS, mode="min", raises=True),
               Sample(BAG_IDX, T((10, 3)), None, raises=True),
               Sample(BAG_IDX, T((10, 3)), index([1, 4], (2,)), raises=True)),
]

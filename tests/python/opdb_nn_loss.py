"""Op database entries of the nn losses (issue 11, ember.nn.functional): every dtype torch supports, layouts,
reductions, class weights, ignore_index, K-dimensional inputs, empty batches, gradients (gradcheck in float64).
Error messages, warnings, legacy arguments and node names are in test_nn_loss.py."""
from opdb import DTYPES, FLOATS, NUMERIC, OpInfo, Sample, T, fixed

LOSS_TOL = {"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2), "float32": (1e-5, 1e-5), "float64": (1e-10, 1e-12)}


def cls(shape, high=4.4, **kw):
    """Class indices in [0, 4]."""
    return T(shape, dtype="int64", low=0, high=high, seed=kw.pop("seed", 7), **kw)


def loss(name, *samples, dtypes=FLOATS, **kw):
    op = OpInfo(name.split("/")[0], fixed(*samples), torch_fn=f"nn.functional.{name.split('/')[-1]}",
                ember_fn=f"nn.functional.{name.split('/')[-1]}", dtypes=dtypes, grad=True, check_strides=False,
                tol=LOSS_TOL, **kw)
    return op


X, Y = T((4, 5)), T((4, 5), seed=1)
W = T((5,), low=0.1, high=1.0, seed=3)
PROB = T((4, 5), low=0.0, high=1.0, seed=2)
UNIT = dict(low=0.05, high=0.95)
REDUCTIONS = [{}, {"reduction": "sum"}, {"reduction": "none"}]


def pair(*extra, **kw):
    """Samples of a (input, target) pointwise loss: layouts, reductions, broadcasting, 0-dim, empty."""
    return [Sample(X, Y, **r, **kw) for r in REDUCTIONS] + [
        Sample(T((4, 5), "transposed"), T((4, 5), "offset", seed=1), **kw),
        Sample(T((4, 5), "expanded"), T((5,), seed=1), **kw), Sample(T(()), T((), seed=1), **kw),
        Sample(T((0, 5)), T((0, 5), seed=1), **kw), Sample(T((0, 5)), T((0, 5), seed=1), reduction="sum", **kw),
        Sample(X, T((3, 5), seed=1), raises=True, **kw), Sample(X, Y, reduction="bad", raises=True, **kw), *extra]


WEIGHTED = [Sample(X, Y, weight=T((4, 5), low=0.1, high=1, seed=4), **r) for r in REDUCTIONS] + [
    Sample(X, Y, weight=W, raises=True)]

ENTRIES = [
    loss("cross_entropy",
         *[Sample(X, cls((4,)), **r) for r in REDUCTIONS],
         Sample(T((4, 5), "transposed"), cls((4,)), weight=W),
         Sample(X, cls((4,)), weight=W, reduction="none"),
         Sample(X, cls((4,)), ignore_index=1), Sample(X, cls((4,)), ignore_index=1, weight=W),
         Sample(X, cls((4,)), label_smoothing=0.2), Sample(X, cls((4,)), label_smoothing=0.2, weight=W),
         Sample(X, cls((4,)), label_smoothing=0.2, ignore_index=2, reduction="none"),
         Sample(X, PROB), Sample(X, PROB, weight=W, reduction="sum"), Sample(X, PROB, label_smoothing=0.1),
         Sample(T((2, 5, 3, 3)), cls((2, 3, 3))), Sample(T((2, 5, 3, 3), "offset"), cls((2, 3, 3)), reduction="none"),
         Sample(T((2, 5, 3)), cls((2, 3)), weight=W), Sample(T((2, 5, 3)), cls((2, 3)), reduction="none"),
         Sample(T((5,)), cls(())), Sample(T((0, 5)), cls((0,))), Sample(T((0, 5)), cls((0,)), reduction="sum"),
         Sample(X, T((4,), dtype="int64", values=[0, 5, 1, 1]), raises=True),
         Sample(X, T((4,), dtype="int64", values=[0, -1, 1, 1]), raises=True),
         Sample(X, cls((3,)), raises=True), Sample(X, T((4,), dtype="float32"), raises=True),
         Sample(X, cls((4,)), weight=T((3,)), raises=True), Sample(X, cls((4,)), label_smoothing=1.5, raises=True),
         Sample(T((2, 5, 3)), cls((2, 4)), raises=True)),
    loss("nll_loss", *[Sample(X, cls((4,)), **r) for r in REDUCTIONS],
         Sample(X, cls((4,)), weight=W, ignore_index=0), Sample(T((2, 5, 3, 3), "transposed"), cls((2, 3, 3)), weight=W),
         Sample(T((2, 5, 3, 2, 2)), cls((2, 3, 2, 2)), reduction="none"), Sample(T((5,)), cls(())),
         Sample(X, T((4,), dtype="int64", values=[-100] * 4)),
         Sample(X, T((4,), dtype="int64", values=[0, 9, 1, 1]), raises=True),
         Sample(T((2, 5, 3, 3)), T((2, 3, 3), dtype="int64", low=5, high=6), raises=True),
         Sample(T(()), cls(()), raises=True)),
    loss("mse_loss", *pair(), *WEIGHTED), loss("l1_loss", *pair(), *WEIGHTED),
    loss("smooth_l1_loss", *pair(), Sample(X, Y, beta=0.5), Sample(X, Y, beta=0.0), Sample(X, Y, beta=-1.0, raises=True)),
    loss("huber_loss", *pair(), *WEIGHTED, Sample(X, Y, delta=0.5), Sample(X, Y, delta=0.0, raises=True)),
    # float32 targets: torch refuses a target that requires grad, so the float64 gradcheck keeps it constant
    loss("soft_margin_loss", Sample(X, T((4, 5), values=[1.0, -1.0] * 10, dtype="float32")),
         Sample(T((4, 5), "transposed"), T((4, 5), values=[1.0, -1.0] * 10, dtype="float32"), reduction="none")),
    loss("binary_cross_entropy", *[Sample(T((4, 5), **UNIT), T((4, 5), seed=1, **UNIT), **r) for r in REDUCTIONS],
         Sample(T((4, 5), "transposed", **UNIT), T((4, 5), seed=1, **UNIT), weight=W),
         Sample(T((4, 5), values=[0.0, 1.0] * 10), T((4, 5), seed=1, **UNIT)),
         Sample(T((4, 5), low=1.1, high=2.0), T((4, 5), seed=1, **UNIT), raises=True),
         Sample(T((4, 5), **UNIT), T((4, 1), **UNIT), raises=True)),
    loss("binary_cross_entropy_with_logits", *[Sample(X, T((4, 5), seed=1, **UNIT), **r) for r in REDUCTIONS],
         Sample(T((4, 5), "transposed"), T((4, 5), seed=1, **UNIT), weight=W, pos_weight=T((5,), low=0.5, high=3)),
         Sample(X, T((4, 5), seed=1, **UNIT), pos_weight=T((5,), low=0.5, high=3), reduction="none"),
         Sample(X, T((4, 1), **UNIT), raises=True)),
    loss("kl_div", *[Sample(X, PROB, **r) for r in REDUCTIONS], Sample(X, PROB, reduction="batchmean"),
         Sample(X, Y, log_target=True), Sample(T((4, 5), "transposed"), Y, log_target=True, reduction="batchmean")),
    loss("cosine_embedding_loss", Sample(X, Y, T((4,), dtype="int64", values=[1, -1, 1, -1])),
         Sample(X, Y, T((4,), dtype="int64", values=[1, -1, -1, 1]), margin=0.2, reduction="none"),
         Sample(T((5,)), T((5,), seed=1), T((), dtype="int64", values=[-1])),
         Sample(X, Y, T((3,), dtype="int64", values=[1, -1, 1]), raises=True), dtypes=DTYPES),
    loss("margin_ranking_loss", Sample(T((4,)), T((4,), seed=1), T((4,), values=[1.0, -1.0, 1.0, -1.0])),
         Sample(T((4,)), T((4,), seed=1), T((4,), values=[1.0, -1.0, -1.0, 1.0]), margin=0.5, reduction="sum"),
         Sample(T((4,)), T((4, 1), seed=1), T((4,), values=[1.0, -1.0, 1.0, -1.0]), raises=True), dtypes=NUMERIC),
    loss("triplet_margin_loss", Sample(X, Y, T((4, 5), seed=2)), Sample(X, Y, T((4, 5), seed=2), swap=True, p=1.0),
         Sample(X, Y, T((4, 5), seed=2), margin=0.5, reduction="none"), Sample(X, Y, T((4, 5), seed=2), margin=0.0,
                                                                                  raises=True), dtypes=NUMERIC),
    loss("gaussian_nll_loss", Sample(X, Y, T((4, 5), low=0.1, high=2, seed=2)),
         Sample(X, Y, T((4,), low=0.1, high=2, seed=2), full=True, reduction="sum"),
         Sample(X, Y, T((4, 1), low=0.1, high=2, seed=2), reduction="none"),
         Sample(X, Y, T((4, 5), low=-1, high=-0.5, seed=2), raises=True),
         Sample(X, Y, T((3, 2), low=0.1, high=2, seed=2), raises=True)),
    loss("poisson_nll_loss", Sample(X, T((4, 5), low=0, high=4, seed=1)),
         Sample(T((4, 5), low=0.1, high=3), T((4, 5), low=0, high=4, seed=1), log_input=False, full=True,
                reduction="sum"), dtypes=NUMERIC),
    loss("multilabel_soft_margin_loss", Sample(X, T((4, 5), values=[1.0, 0.0] * 10)),
         Sample(X, T((4, 5), values=[0.0, 1.0] * 10), weight=W, reduction="none")),
    loss("multi_margin_loss", Sample(X, cls((4,))), Sample(X, cls((4,)), p=2, margin=0.5, reduction="none"),
         Sample(T((4, 5), "transposed"), cls((4,)), weight=W, reduction="sum"), Sample(T((5,)), cls(())),
         Sample(T((5,)), cls((1,)), reduction="none"),  # no empty batch: torch returns uninitialised memory
         Sample(X, T((4,), dtype="int64", values=[0, 5, 1, 1]), raises=True), Sample(X, cls((4,)), p=3, raises=True),
         Sample(X, cls((3,)), raises=True), Sample(T((2, 3, 4)), cls((2,)), raises=True),
         dtypes=("float32", "float64")),
    loss("hinge_embedding_loss", Sample(X, T((4, 5), values=[1.0, -1.0] * 10)),
         Sample(X, T((4, 5), values=[-1.0, 1.0] * 10), margin=2.0, reduction="sum")),
]

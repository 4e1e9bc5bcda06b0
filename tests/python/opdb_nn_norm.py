"""Op database entries of the nn normalisation functions (issue 11, `nnnorm`): batch_norm (training), layer_norm,
group_norm, instance_norm, rms_norm, local_response_norm. Running statistics and eval mode are in test_nn_norm.py
(the database would make them leaves requiring grad)."""
from opdb import FLOATS, OpInfo, Sample, T, XFail, fixed

NORM_TOL = {"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2), "float32": (1e-4, 1e-5), "float64": (1e-10, 1e-12)}


def functional(name, *samples, **kw):
    kw.setdefault("dtypes", FLOATS)
    return OpInfo(name, fixed(*samples), torch_fn=f"nn.functional.{name}", ember_fn=f"nn.functional.{name}",
                  method=None, grad=True, tol=NORM_TOL, **kw)


ENTRIES = [
    functional("batch_norm",
               Sample(T((4, 3, 5)), None, None, T((3,), seed=1), T((3,), seed=2), True),
               Sample(T((4, 3, 5), "transposed"), None, None, training=True),
               Sample(T((6, 3)), None, None, T((3,), seed=1), None, training=True, momentum=0.3, eps=1e-3),
               Sample(T((2, 3, 2, 3, 2), "offset"), None, None, None, T((3,), seed=2), True),
               Sample(T((2, 3, 4, 5), "expanded"), None, None, T((3,), seed=1), T((3,), seed=2), True),
               Sample(T((0, 3, 4)), None, None, training=True),
               Sample(T((1, 3)), None, None, training=True, raises=True),
               Sample(T((4, 3)), None, None, T((4,), seed=1), training=True, raises=True)),
    functional("layer_norm",
               Sample(T((4, 5)), (5,), T((5,), seed=1), T((5,), seed=2)),
               Sample(T((3, 4, 5), "transposed"), (4, 5)),
               Sample(T((3, 4, 5), "offset"), [5], None, T((5,), seed=2), eps=1e-3),
               Sample(T((2, 6), "expanded"), (6,), T((6,), seed=1)),
               Sample(T((7,)), (7,), T((7,), seed=1), T((7,), seed=2)),
               Sample(T((0, 4)), (4,)),
               Sample(T((2, 3)), (4,), raises=True),
               Sample(T((2, 3)), (3,), T((4,)), raises=True)),
    functional("group_norm",
               Sample(T((2, 6, 4)), 3, T((6,), seed=1), T((6,), seed=2)),
               Sample(T((3, 4, 2, 3), "transposed"), 2),
               Sample(T((2, 4, 5), "offset"), 4, None, T((4,), seed=2), eps=1e-3),
               Sample(T((2, 6)), 2, T((6,), seed=1)),
               Sample(T((2, 6, 3)), 4, raises=True),
               xfails=[XFail("torch.nn.functional.group_norm(torch.randn(2, 4, 5, requires_grad=True), 4, None, "
                             "torch.randn(4, requires_grad=True)).sum().backward() raises 'tensor does not have a "
                             "device' in torch (a bias without a weight); ember returns the gradients",
                             sample="offset2x4x5,4,None", forms=("grad",))]),
    functional("instance_norm",
               Sample(T((2, 3, 5))),
               Sample(T((2, 3, 4, 3), "transposed"), weight=T((3,), seed=1), bias=T((3,), seed=2)),
               Sample(T((3, 2, 5), "offset"), eps=1e-3),
               Sample(T((2, 3, 1)), raises=True)),
    functional("rms_norm",
               Sample(T((4, 5)), (5,), T((5,), seed=1)),
               Sample(T((3, 4, 5), "transposed"), (4, 5)),
               Sample(T((3, 4), "offset"), [4], None, 1e-3),
               Sample(T((2, 3)), (4,), raises=True),
               check_strides=False),  # torch's composite gives a transposed input a contiguous result
    OpInfo("local_response_norm", lambda dtype: iter(
        [Sample(T((2, 5, 4)), 3), Sample(T((4, 5)), 2, raises=True)] +
        ([Sample(T((2, 6, 3, 2), "transposed"), 2, alpha=0.1, beta=0.5, k=2.0), Sample(T((1, 4, 2, 2, 2)), 5)]
         if dtype in ("float32", "float64", "int64") else [])),  # torch's avg_pool3d: no float16/bfloat16 kernel
        torch_fn="nn.functional.local_response_norm", ember_fn="nn.functional.local_response_norm", method=None,
        dtypes=FLOATS + ("int64",), grad=True, tol=NORM_TOL),
]

"""Op database entries of nn's linear layers (issue 11, `nnmod`): F.linear and F.bilinear."""
from opdb import NUMERIC, OpInfo, Sample, T, fixed

MM_TOL = {"float16": (2e-3, 1e-2), "bfloat16": (1.6e-2, 1e-1), "float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)}


def nn_fn(name, *samples, **kw):
    return OpInfo(name, fixed(*samples), torch_fn=f"nn.functional.{name}", ember_fn=f"nn.functional.{name}",
                  method=None, dtypes=NUMERIC, grad=True, tol=MM_TOL, check_strides=False, **kw)


ENTRIES = [
    nn_fn("linear", Sample(T((3, 4)), T((5, 4), seed=1), T((5,), seed=2)),
          Sample(T((3, 4), "transposed"), T((5, 4), "offset", seed=1)),
          Sample(T((2, 3, 4)), T((5, 4), seed=1), T((5,), seed=2)),
          Sample(T((2, 3, 4), "expanded"), T((5, 4), seed=1), T((5,), "offset", seed=2)),
          Sample(T((4,)), T((5, 4), seed=1), T((5,), seed=2)),
          Sample(T((2, 2, 3, 4)), T((5, 4), seed=1)),
          Sample(T((0, 4)), T((5, 4), seed=1), T((5,), seed=2)),
          Sample(T((3, 4)), T((5, 3), seed=1), raises=True)),
    nn_fn("bilinear", Sample(T((3, 4)), T((3, 2), seed=1), T((5, 4, 2), seed=2), T((5,), seed=3)),
          Sample(T((2, 3, 4), "transposed"), T((2, 3, 2), seed=1), T((5, 4, 2), seed=2)),
          Sample(T((3, 4)), T((2, 2), seed=1), T((5, 4, 2), seed=2), raises=True),
          Sample(T((3, 4)), T((3, 3), seed=1), T((5, 4, 2), seed=2), raises=True)),
]

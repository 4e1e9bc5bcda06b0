"""ember.backends: the switches of Ember's backends, as torch.backends."""
import warnings as _warnings

from . import cuda, cudnn, mkldnn


def set_float32_matmul_precision(precision):
    """"highest" computes float32 matmuls in float32; "high" and "medium" let CUDA use TF32, as
    torch.backends.cuda.matmul.allow_tf32 = True."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        _warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                       "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    cuda.matmul.allow_tf32 = precision != "highest"
    cuda._tf32_precision = precision if precision != "highest" else "high"


def get_float32_matmul_precision():
    return cuda._tf32_precision if cuda.matmul.allow_tf32 else "highest"

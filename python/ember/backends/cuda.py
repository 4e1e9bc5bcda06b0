"""ember.backends.cuda: switches of the CUDA backend, as torch.backends.cuda."""
from .. import _C

# Which of "high" and "medium" set_float32_matmul_precision asked for; either allows TF32.
_tf32_precision = "high"


class cuBLASModule:
    """torch.backends.cuda.matmul: `allow_tf32` lets float32 matmuls round their inputs to TF32 (default False).
    Without a CUDA device the value is kept for when one is used, as in torch's CPU build."""

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _C._cuda_matmul_allow_tf32()
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            global _tf32_precision
            if not isinstance(value, bool):
                raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")
            _tf32_precision = "high"
            return _C._cuda_set_matmul_allow_tf32(value)
        raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()

"""ember.backends.cudnn: the switches of CUDA convolutions, as torch.backends.cudnn. `allow_tf32` (default True) lets
float32 convolutions round their inputs to TF32, `benchmark` (default False) times cuDNN's algorithms once per problem,
`deterministic` (default False) keeps to algorithms that give the same bits every run. Kept without a CUDA device."""
import contextlib as _contextlib
import sys as _sys
import types as _types

from .. import _C

# name: (getter, setter, the setter's name in torch's type error)
_SWITCHES = {
    "allow_tf32": (_C._cudnn_allow_tf32, _C._cudnn_set_allow_tf32, "set_allow_tf32_cublas"),
    "benchmark": (_C._cudnn_benchmark, _C._cudnn_set_benchmark, "set_benchmark_cudnn"),
    "deterministic": (_C._cudnn_deterministic, _C._cudnn_set_deterministic, "set_deterministic_cudnn"),
}


def is_available():
    """Whether cuDNN can be used: Ember's CUDA backend carries it, so whenever CUDA is available."""
    from .. import cuda
    return cuda.is_available()


def _set(name, value):
    _, setter, torch_name = _SWITCHES[name]
    if not isinstance(value, bool):
        raise RuntimeError(f"{torch_name} expects a bool, but got {type(value).__name__}")
    setter(value)


@_contextlib.contextmanager
def flags(benchmark=False, deterministic=False, allow_tf32=True):
    """Sets the switches for a block and restores them after (as torch.backends.cudnn.flags)."""
    module = _sys.modules[__name__]
    saved = {name: getattr(module, name) for name in _SWITCHES}
    for name, value in (("benchmark", benchmark), ("deterministic", deterministic), ("allow_tf32", allow_tf32)):
        _set(name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            _set(name, value)


class _CudnnModule(_types.ModuleType):
    """The module's switches as attributes read from and written to the core."""

    def __getattr__(self, name):
        if name in _SWITCHES:
            return _SWITCHES[name][0]()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name in _SWITCHES:
            return _set(name, value)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _CudnnModule

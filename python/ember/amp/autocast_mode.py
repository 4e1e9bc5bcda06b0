"""ember.autocast: automatic mixed precision regions (torch.autocast). The state and the casts live in C++
(ember/autocast.h); listed ops cast their inputs where they begin (src/core/autocast_policy.h)."""
import functools
import warnings

from .. import _C

_DEVICE_TYPES = ("cpu", "cuda")
_SUPPORTED_DTYPES = None  # (bfloat16, float16), set on first use (ember's dtypes load after this module)


def _supported_dtypes():
    global _SUPPORTED_DTYPES
    if _SUPPORTED_DTYPES is None:
        _SUPPORTED_DTYPES = (_C.bfloat16, _C.float16)
    return _SUPPORTED_DTYPES


def is_autocast_available(device_type):
    return device_type in _DEVICE_TYPES


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for device_type (CUDA when not given, as torch)."""
    return _C._is_autocast_enabled("cuda" if device_type is None else device_type)


def _check_bool(fn, value, position):
    if not isinstance(value, bool):
        raise TypeError(f"{fn}(): argument 'enabled' (position {position}) must be bool, not {type(value).__name__}")


def set_autocast_enabled(device_type, enabled=None):
    if enabled is None and not isinstance(device_type, str):  # torch's one-argument form sets CUDA's flag
        _check_bool("set_autocast_enabled", device_type, 1)
        device_type, enabled = "cuda", device_type
    _check_bool("set_autocast_enabled", enabled, 2)
    _C._set_autocast_enabled(device_type, enabled)


def get_autocast_dtype(device_type):
    return _C._get_autocast_dtype(device_type)


def set_autocast_dtype(device_type, dtype):
    _C._set_autocast_dtype(device_type, dtype)


def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    _check_bool("set_autocast_cpu_enabled", enabled, 1)
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


class autocast:
    """A region (context manager or decorator) where listed ops run in a lower precision (torch.autocast)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype  # raises for unknown devices
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = _C.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            if device_type == "cuda":
                from .. import cuda
                if not cuda.is_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                    enabled = False
                elif self.fast_dtype == _C.bfloat16 and not cuda.is_bf16_supported():
                    raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
            elif self.fast_dtype not in _supported_dtypes():
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"{name} Autocast only supports dtypes of "
                              + ", ".join(map(str, _supported_dtypes())) + " currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _C.is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        _C.autocast_increment_nesting()
        _C.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if _C.autocast_decrement_nesting() == 0:  # leaving the outermost region drops the cached weight casts
            _C.clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        _C.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                            "Did you mean to use autocast as a context manager? For example:\n"
                            "    with torch.autocast(device_type=...):\n"
                            "        output = model(input)")

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        decorated.__script_unsupported = "@autocast() decorator is not supported in script mode"
        return decorated


def _deprecated_alias(device_type, default_dtype):
    """torch.cpu.amp.autocast / torch.cuda.amp.autocast: the device's autocast, with a FutureWarning."""

    class _autocast(autocast):
        def __init__(self, enabled=True, dtype=None, cache_enabled=True):
            warnings.warn(f"`torch.{device_type}.amp.autocast(args...)` is deprecated. Please use "
                          f"`torch.amp.autocast('{device_type}', args...)` instead.", FutureWarning, stacklevel=2)
            super().__init__(device_type, dtype=default_dtype() if dtype is None else dtype, enabled=enabled,
                             cache_enabled=cache_enabled)

    _autocast.__name__ = _autocast.__qualname__ = "autocast"
    return _autocast


def _cast(value, device_type, dtype):
    """value with its eligible tensors (floating, not float64, on device_type) cast to dtype, through containers."""
    if isinstance(value, _C.Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype != _C.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates an autograd.Function's forward: records the autocast state for custom_bwd; with cast_inputs, runs
    forward with autocast off on inputs cast to that dtype (when called inside an autocast region)."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        in_region = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if not in_region:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorates an autograd.Function's backward: runs it under the autocast state its forward saw."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd

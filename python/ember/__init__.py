"""Ember: a deep-learning framework with a C++20 core and a PyTorch-compatible API.

`import ember as torch` runs code written for PyTorch. Everything here is a thin layer
over the C++ extension `ember._C`.
"""
import os as _os
import sys as _sys

from . import _C
from ._C import *  # noqa: F401,F403  (dtypes, Tensor, factories, random)
from ._C import Tensor, dtype, device, Generator, finfo, iinfo
from ._size import Size
from . import cpu, cuda
from .cpu import empty_cache
from ._printing import set_printoptions, get_printoptions
from ._functional import *  # noqa: F401,F403
from ._reductions import max, min
from . import return_types
from . import special
from . import autograd
from . import nn
from . import utils
from . import backends
from .backends import set_float32_matmul_precision, get_float32_matmul_precision
from .autograd.grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode

_C._set_size_type(Size)

__version__ = "0.1.0"

# The C++ headers and CMake package live inside the installed package.
cmake_prefix_path = _os.path.join(_os.path.dirname(__file__), "share", "cmake")
include_dir = _os.path.join(_os.path.dirname(__file__), "include")


class layout:
    """A tensor memory layout: strided, or sparse (COO, CSR)."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):
        return self._name  # pickles as the module's own object (ember.strided)


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")


class memory_format(layout):
    """A tensor memory format; factories accept these and make contiguous tensors."""


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def randint_like(input, low=None, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None, generator=None):
    if not isinstance(input, Tensor):
        raise TypeError(f"randint_like(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if low is None and high is None:
        raise TypeError("randint_like() missing 1 required positional argument: 'high'")
    if high is None:
        low, high = 0, low
    if input.layout != strided:
        raise NotImplementedError(f"randint_like of a {input.layout} tensor is not supported (torch's random_)")
    return randint(low, high, input.shape, generator=generator, dtype=input.dtype if dtype is None else dtype,
                   device=input.device if device is None else device, requires_grad=requires_grad)


_normal_sizes = _C.normal


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """normal(mean, std, size) of floats, or with a tensor mean and/or std (shape and dtype from them)."""
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        return _normal_sizes(mean, std, size, generator=generator, out=out, dtype=dtype, layout=layout, device=device,
                             requires_grad=requires_grad, pin_memory=pin_memory)
    ref = mean if isinstance(mean, Tensor) else std
    if (isinstance(mean, Tensor) and mean.layout != strided) or (isinstance(std, Tensor) and std.layout != strided):
        raise NotImplementedError("normal with a sparse mean or std is not supported (torch's normal.Tensor_Tensor)")
    shape = (mean + std).shape if isinstance(mean, Tensor) and isinstance(std, Tensor) else ref.shape
    return mean + std * randn(shape, generator=generator, dtype=ref.dtype, device=ref.device)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.numel()


def _tensor_iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


def _tensor_format(self, spec):
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


Tensor.max = max
Tensor.min = min
Tensor.__iter__ = _tensor_iter
Tensor.__format__ = _tensor_format
Tensor.__str__ = Tensor.__repr__
Tensor.__hash__ = object.__hash__
Tensor.record_stream = cuda._record_stream
Tensor.get_device = lambda self: self.device.index if self.is_cuda else -1
Tensor.is_meta = property(lambda self: False)
Tensor.is_signed = lambda self: self.dtype.is_signed


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    if isinstance(data, Tensor):  # torch's warning names new_tensor
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        return data.detach().clone().to(dtype=self.dtype if dtype is None else dtype,
                                        device=self.device if device is None else device).requires_grad_(requires_grad)
    return tensor(data, dtype=self.dtype if dtype is None else dtype,
                  device=self.device if device is None else device, requires_grad=requires_grad)


Tensor.new_tensor = _new_tensor

class tensortype(type):
    """The metaclass of the legacy tensor types (ember.FloatTensor, ...): a CPU tensor of the type's dtype is an
    instance; calling one builds like ember.Tensor(...) in that dtype."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __call__(cls, *args, device=None):
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0].dtype != cls.dtype:
                raise TypeError(f"expected {cls.__name__} (got {args[0].type()[6:]})")
            return Tensor(args[0], device=device)
        data = len(args) == 1 and not isinstance(args[0], Size) and not hasattr(args[0], "__index__")
        return tensor(args[0], dtype=cls.dtype, device=device) if data else \
            empty(*(args or (0,)), dtype=cls.dtype, device=device)


for _name, _dtype in (("Float", float32), ("Double", float64), ("Half", float16), ("BFloat16", bfloat16),
                      ("Byte", uint8), ("Char", int8), ("Short", int16), ("Int", int32), ("Long", int64), ("Bool", bool)):
    globals()[_name + "Tensor"] = tensortype(_name + "Tensor", (), {"dtype": _dtype, "__module__": "torch"})

# numpy defers its operators to tensors (np.float64(2) * t is a tensor) and wraps ufunc results back, as torch.
Tensor.__array_priority__ = 1000


def _array_wrap(self, array, context=None, return_scalar=False):
    return from_numpy(array.astype("uint8") if array.dtype.kind == "b" else array)


Tensor.__array_wrap__ = _array_wrap

try:  # the einops backend exists once its class is defined (einops finds backends by subclass)
    from . import _einops
except ImportError:  # einops is not installed
    pass
from . import linalg  # noqa: E402
from . import sparse  # noqa: E402
from . import optim  # noqa: E402
from . import serialization  # noqa: E402
from .serialization import save, load  # noqa: E402
from . import safetensors  # noqa: E402
from . import amp  # noqa: E402
from .amp import autocast  # noqa: E402
from .amp.autocast_mode import (  # noqa: E402
    is_autocast_enabled, set_autocast_enabled, get_autocast_dtype, set_autocast_dtype, is_autocast_cpu_enabled,
    set_autocast_cpu_enabled, get_autocast_cpu_dtype, set_autocast_cpu_dtype, get_autocast_gpu_dtype,
    set_autocast_gpu_dtype)
from ._C import _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_  # noqa: E402
from .amp import _cpu as _cpu_amp, _cuda as _cuda_amp  # noqa: E402

cpu.amp = _cpu_amp  # ember.cpu.amp / ember.cuda.amp, importable by name too
cuda.amp = _cuda_amp
_sys.modules[__name__ + ".cpu.amp"] = _cpu_amp
_sys.modules[__name__ + ".cuda.amp"] = _cuda_amp

"""Ember: a deep-learning framework with a C++20 core and a PyTorch-compatible API.

`import ember as torch` runs code written for PyTorch. Everything here is a thin layer
over the C++ extension `ember._C`.
"""
import os as _os

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
from . import autograd
from . import utils
from .autograd.grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode

_C._set_size_type(Size)

__version__ = "0.1.0"

# The C++ headers and CMake package live inside the installed package.
cmake_prefix_path = _os.path.join(_os.path.dirname(__file__), "share", "cmake")
include_dir = _os.path.join(_os.path.dirname(__file__), "include")


class layout:
    """A tensor memory layout; Ember tensors are strided."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name


strided = layout("strided")
sparse_coo = layout("sparse_coo")


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
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
Tensor.layout = property(lambda self: strided)
Tensor.get_device = lambda self: self.device.index if self.is_cuda else -1
Tensor.pin_memory = lambda self: (_ for _ in ()).throw(
    AssertionError("pin_memory() needs a CUDA device; this build or machine has none"))
Tensor.is_pinned = lambda self: False

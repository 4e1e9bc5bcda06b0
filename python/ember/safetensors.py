"""safetensors for ember tensors, mirroring the `safetensors.torch` API (save_file, load_file, save, load,
safe_open). The format is read and written by the C++ side (src/serialize/safetensors.cpp); files load
memory-mapped (copy on write)."""
import os

from . import _C

__all__ = ["save", "save_file", "load", "load_file", "safe_open"]


def save(tensors, metadata=None):
    """The safetensors bytes of a dict of name -> contiguous tensor (no two sharing memory)."""
    return _C._safetensors_save(tensors, metadata)


def save_file(tensors, filename, metadata=None):
    """Writes save's bytes to `filename` atomically."""
    _C._safetensors_save_file(tensors, os.fsdecode(os.fspath(filename)), metadata)


def load(data):
    """The tensors of safetensors bytes, as a dict."""
    return _C._safetensors_load(data)


def load_file(filename, device="cpu"):
    """The tensors of a safetensors file (memory-mapped), on `device`."""
    with safe_open(filename, framework="pt", device=device) as f:
        return {k: f.get_tensor(k) for k in f.keys()}


class _Slice:
    """A lazily read tensor of a safe_open file: shape, dtype, and indexing."""

    def __init__(self, file, name):
        self._file, self._name = file, name

    def get_shape(self):
        return self._file._f.shape(self._name)

    def get_dtype(self):
        return self._file._f.dtype_name(self._name)

    def __getitem__(self, index):
        return self._file.get_tensor(self._name)[index]


class safe_open:
    """Opens a safetensors file for reading tensors by name (memory-mapped): keys(), get_tensor(name),
    get_slice(name), metadata()."""

    def __init__(self, filename, framework="pt", device="cpu"):
        if framework not in ("pt", "torch", "ember"):
            raise ValueError(f"framework {framework!r} is not supported: use 'pt'")
        path = os.fsdecode(os.fspath(filename))
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        self._f = _C._SafetensorsFile(path)
        self._device = device

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def keys(self):
        return self._f.keys()

    def metadata(self):
        return self._f.metadata()

    def get_tensor(self, name):
        t = self._f.tensor(name)
        return t if str(self._device) == "cpu" else t.to(self._device)

    def get_slice(self, name):
        self._f.dtype(name)  # raises for an unknown name
        return _Slice(self, name)

"""ember.save / ember.load: torch's checkpoint format (a zip of a pickle and raw storages), written and read by
the C++ side (src/serialize). Loading is always restricted: it builds only tensors, dtypes and plain containers
and refuses any other global, so it never runs code from a file (torch's weights_only=True)."""
import os

from . import _C

__all__ = ["save", "load"]


def _is_path(f):
    return isinstance(f, (str, bytes, os.PathLike))


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Saves obj (tensors, numbers, strings, bytes, dtypes, None and lists, tuples, dicts and OrderedDicts of
    them) to a path (written atomically: a temporary file renamed over it) or a writable file object."""
    if _is_path(f):
        path = os.fsdecode(os.fspath(f))
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
        _C._save_to_path(obj, path)
    elif hasattr(f, "write"):
        _C._save_to_stream(obj, f.write)
    else:
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'write'")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Loads what save (or torch.save) wrote from a path or a readable file object. map_location: a device,
    a device string, or a dict from saved location to device. mmap=True (paths only) maps the file and lets
    the tensors view it (copy on write)."""
    if _is_path(f) or (mmap and hasattr(f, "name")):
        path = os.fsdecode(os.fspath(f if _is_path(f) else f.name))
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        return _C._load_from_path(path, map_location, bool(mmap))
    if mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    if hasattr(f, "getvalue"):  # BytesIO: its bytes without a copy
        pos = f.tell()
        with memoryview(f.getvalue()) as whole, whole[pos:] as rest:
            out = _C._load_from_buffer(rest, map_location)
        f.seek(0, os.SEEK_END)
        return out
    if hasattr(f, "read"):
        return _C._load_from_buffer(f.read(), map_location)
    raise AttributeError(f"'{type(f).__name__}' object has no attribute 'read'")

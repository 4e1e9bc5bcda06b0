"""Print options (torch.set_printoptions); the formatting itself is done in C++."""
from . import _C


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    _C._set_printoptions(precision, threshold, edgeitems, linewidth, profile, sci_mode)


def get_printoptions():
    return _C._get_printoptions()

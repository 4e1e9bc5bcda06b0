"""ember.cpu.amp: torch.cpu.amp's deprecated autocast alias."""
from .. import _C
from .autocast_mode import _deprecated_alias

autocast = _deprecated_alias("cpu", lambda: _C.bfloat16)

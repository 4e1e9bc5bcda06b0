"""ember.cuda.amp: torch.cuda.amp's deprecated autocast and GradScaler aliases."""
from .. import _C
from .autocast_mode import _deprecated_alias
from .grad_scaler import _deprecated_cuda_alias

autocast = _deprecated_alias("cuda", lambda: _C.float16)
GradScaler = _deprecated_cuda_alias()

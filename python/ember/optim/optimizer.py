"""torch.optim.optimizer's names: the base class is the C++ one (ember._C._optim.Optimizer)."""
from .._C._optim import Optimizer

__all__ = ["Optimizer"]

"""ember.optim: torch.optim's optimizers and schedulers; each step is one fused C++ pass per group."""
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam, AdamW

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]

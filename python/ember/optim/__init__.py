"""ember.optim: torch.optim's optimizers, the C++ classes of ember/optim/optimizer.h (ember._C._optim).
Each step is one fused C++ pass per param group; subclass Optimizer and define step() for your own."""
from .._C._optim import (ASGD, LBFGS, SGD, Adadelta, Adafactor, Adagrad, Adam, Adamax, AdamW, Muon, NAdam, RAdam,
                         RMSprop, Rprop, SparseAdam)
from .optimizer import Optimizer

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adamax", "NAdam", "RAdam", "Adadelta", "LBFGS",
           "SparseAdam", "ASGD", "Rprop", "Adafactor", "Muon"]
from . import lr_scheduler  # noqa: E402

"""torch.optim.lr_scheduler: the C++ schedulers of ember/optim/lr_scheduler.h (ember._C._optim.lr_scheduler)."""
from .._C._optim.lr_scheduler import (ChainedScheduler, ConstantLR, CosineAnnealingLR, CosineAnnealingWarmRestarts,
                                      CyclicLR, ExponentialLR, LambdaLR, LinearLR, LRScheduler, MultiplicativeLR,
                                      MultiStepLR, OneCycleLR, PolynomialLR, ReduceLROnPlateau, SequentialLR, StepLR)

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
           "OneCycleLR", "SequentialLR", "ChainedScheduler", "ReduceLROnPlateau"]

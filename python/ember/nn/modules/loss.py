"""ember.nn's loss and distance modules: the C++ classes of ember._C._nn._modules."""
from .activation import _export

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss",
           "BCEWithLogitsLoss", "KLDivLoss", "CosineEmbeddingLoss", "MarginRankingLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss", "GaussianNLLLoss", "PoissonNLLLoss", "SoftMarginLoss",
           "MultiLabelSoftMarginLoss", "MultiLabelMarginLoss", "MultiMarginLoss", "HingeEmbeddingLoss"]

_export(__all__ + ["_Loss", "_WeightedLoss"], globals())

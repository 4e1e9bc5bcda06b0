"""ember.nn's attention and transformer modules: the C++ classes of ember._C._nn._modules."""
from .activation import _export

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]

_export(__all__ + ["NonDynamicallyQuantizableLinear"], globals())

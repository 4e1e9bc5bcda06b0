"""ember.nn's activation modules: the C++ classes of ember._C._nn._modules."""
from ... import _C

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "PReLU", "RReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Sigmoid",
           "Tanh", "Softmax", "LogSoftmax", "Softmin", "Softmax2d", "Softplus", "Softsign", "Softshrink", "Hardshrink",
           "Tanhshrink", "Hardtanh", "Hardswish", "Hardsigmoid", "LogSigmoid", "Threshold", "GLU"]


def _export(names, scope):
    for name in names:
        cls = getattr(_C._nn._modules, name)
        cls.__module__ = "ember.nn"
        scope[name] = cls


_export(__all__, globals())

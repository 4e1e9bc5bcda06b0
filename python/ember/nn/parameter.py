"""ember.nn.Parameter (torch.nn.Parameter): a Tensor that a Module registers as a parameter."""
from .. import _C
from .._C import Tensor


class Parameter(Tensor):
    """A leaf tensor sharing `data`'s storage; it stays a Parameter when it comes back from C++."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        return _C._make_parameter(data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass  # made in __new__

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (Parameter, (self.detach(), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(self.detach().clone(), self.requires_grad)
        return memo[id(self)]


_C._set_parameter_class(Parameter)

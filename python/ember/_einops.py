"""The einops backend for Ember tensors. einops finds backends by subclassing AbstractBackend and keys them by
`framework_name`, a module that must be imported: defining the class here (ember/__init__ imports this module when
einops is installed) makes einops.rearrange/reduce/repeat/einsum/pack/unpack take Ember tensors. Rearrange and Reduce
are the layers (einops.layers' mixins, called like modules)."""
from einops._backends import AbstractBackend
from einops.layers import RearrangeMixin, ReduceMixin

import ember


class EmberBackend(AbstractBackend):
    framework_name = "ember"

    def is_appropriate_type(self, tensor):
        return isinstance(tensor, ember.Tensor)

    def from_numpy(self, x):
        variable = ember.from_numpy(x)
        if self.is_float_type(variable):
            variable.requires_grad = True
        return variable

    def to_numpy(self, x):
        return x.detach().cpu().numpy()

    def arange(self, start, stop):
        return ember.arange(start, stop, dtype=ember.int64)

    def shape(self, x):
        return tuple(x.shape)

    def reduce(self, x, operation, reduced_axes):
        if operation in ("min", "max"):
            return getattr(x, "a" + operation)(dim=reduced_axes)
        if operation in ("sum", "mean"):
            return getattr(x, operation)(dim=reduced_axes)
        if operation in ("any", "all", "prod"):  # one dim at a time
            for axis in sorted(reduced_axes)[::-1]:
                x = getattr(x, operation)(dim=axis)
            return x
        raise NotImplementedError("Unknown reduction ", operation)

    def transpose(self, x, axes):
        return x.permute(axes)

    def stack_on_zeroth_dimension(self, tensors: list):
        return ember.stack(tensors)

    def add_axis(self, x, new_position):
        return ember.unsqueeze(x, new_position)

    def add_axes(self, x, n_axes, pos2len):
        repeats = [-1] * n_axes
        for axis_position, axis_length in pos2len.items():
            x = self.add_axis(x, axis_position)
            repeats[axis_position] = axis_length
        return x.expand(repeats)

    def tile(self, x, repeats):
        return x.repeat(repeats)

    def concat(self, tensors, axis: int):
        return ember.cat(tensors, dim=axis)

    def is_float_type(self, x):
        return x.dtype in (ember.float16, ember.float32, ember.float64, ember.bfloat16)

    def layers(self):
        import sys
        return sys.modules[__name__]

    def einsum(self, pattern, *x):
        return ember.einsum(pattern, *x)


class Rearrange(RearrangeMixin):
    """einops.layers' Rearrange for Ember tensors: Rearrange("b c h w -> b (c h w)")(x)."""

    def forward(self, x):
        return self._apply_recipe(x)

    __call__ = forward


class Reduce(ReduceMixin):
    """einops.layers' Reduce for Ember tensors: Reduce("b c (h 2) (w 2) -> b c h w", "max")(x)."""

    def forward(self, x):
        return self._apply_recipe(x)

    __call__ = forward

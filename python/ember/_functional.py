"""Module-level forms of Tensor methods (ember.transpose(x, 0, 1) ...)."""
from ._C import Tensor

__all__ = [
    "reshape", "transpose", "swapaxes", "swapdims", "t", "permute", "squeeze", "unsqueeze", "flatten",
    "unflatten", "narrow", "select", "split", "chunk", "unbind", "diagonal", "movedim", "moveaxis",
    "as_strided", "clone", "is_floating_point",
]
# torch's module-level in-place forms: ember.exp_(x) is x.exp_()
_IN_PLACE = [
    "abs_", "absolute_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_",
    "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_",
    "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_", "gcd_", "i0_", "lcm_", "ldexp_",
    "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_",
    "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_",
    "zero_", "fill_",
]
__all__ += [n for n in _IN_PLACE if hasattr(Tensor, n)]


def _forward(name):
    method = getattr(Tensor, name)

    def fn(input, *args, **kwargs):
        return method(input, *args, **kwargs)

    fn.__name__ = name
    fn.__doc__ = f"ember.{name}(input, ...) is input.{name}(...)"
    return fn


for _name in __all__:
    globals()[_name] = _forward(_name)
del _name


def _check_ints(name, arg, value, position=2):
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be tuple of ints, not "
                        f"{type(value).__name__}")
    return value


# The function forms take one sequence, not the methods' varargs.
def reshape(input, shape):
    return input.reshape(_check_ints("reshape", "shape", shape))


def permute(input, dims):
    return input.permute(_check_ints("permute", "dims", dims))


def unflatten(input, dim, sizes):  # unlike the method, None is refused
    return input.unflatten(dim, _check_ints("unflatten", "sizes", sizes, 3))

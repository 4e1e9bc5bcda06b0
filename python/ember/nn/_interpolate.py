"""interpolate: torch.nn.functional.interpolate's argument handling (size or scale_factor, align_corners,
recompute_scale_factor) in front of Ember's upsampling kernels (ember._C._nn._upsample)."""
import math

from .._C import _nn

_KERNEL_MODES = {"nearest": 0, "nearest-exact": 0, "linear": 3, "bilinear": 4, "trilinear": 5}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(x, int) or hasattr(x, "__index__") for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}")
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        output_size = [math.floor(float(input.size(i + 2)) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    needs = _KERNEL_MODES.get(mode)
    if needs is not None and (needs == 0 and input.dim() in (3, 4, 5) or needs == input.dim()) and not antialias:
        if output_size is None:  # torch's compute_output_size: floor(in * scale) in double
            output_size = [int(float(input.size(i + 2)) * scale_factors[i]) for i in range(dim)]
        return _nn._upsample(input, output_size, mode, bool(align_corners), scale_factors)
    if mode in ("area", "bicubic") or antialias:
        raise NotImplementedError(f"ember: interpolate with mode={mode!r}{' and antialias' if antialias else ''} "
                                  "is not implemented yet")
    wanted = {"linear": 3, "bilinear": 4, "trilinear": 5}.get(mode)
    if wanted is not None and input.dim() in (3, 4, 5):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {wanted}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: nearest | linear "
        f"| bilinear | bicubic | trilinear | area | nearest-exact (got {mode})")

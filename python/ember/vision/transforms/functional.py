"""torchvision.transforms.functional for Ember: argument handling here, tensor kernels in C++ (ember._C._vision),
PIL images through Pillow's own operations (as torchvision's PIL path)."""
import enum
import numbers

import numpy as np

import ember
from ember import _C

_V = _C._vision


class InterpolationMode(enum.Enum):
    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


def _pil():
    from PIL import Image
    return Image


def _is_pil(img):
    if isinstance(img, ember.Tensor):
        return False
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow is a dependency of the image paths only
        return False
    return isinstance(img, Image.Image)


def _check_image(img):
    if not isinstance(img, ember.Tensor) and not _is_pil(img):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")


def _check_tensor(img, what="img"):
    if not isinstance(img, ember.Tensor):
        raise TypeError(f"{what} should be Tensor Image. Got {type(img)}")


def _mode(interpolation, allowed=("nearest", "bilinear")):
    if isinstance(interpolation, int):
        raise TypeError("Argument interpolation should be of type InterpolationMode instead of int. "
                        "Please, use InterpolationMode enum.")
    value = interpolation.value if isinstance(interpolation, InterpolationMode) else interpolation
    if value not in allowed:
        raise NotImplementedError(f"ember.vision: interpolation {value!r} is not implemented (supported: "
                                  f"{', '.join(allowed)})")
    return value


def _pil_resample(mode):
    Image = _pil()
    return {"nearest": Image.NEAREST, "bilinear": Image.BILINEAR}[mode]


def get_dimensions(img):
    """[channels, height, width]."""
    if isinstance(img, ember.Tensor):
        shape = img.shape
        if len(shape) < 2:
            raise TypeError(f"Tensor is not a torch image: {len(shape)} dims")
        return [1 if len(shape) == 2 else shape[-3], shape[-2], shape[-1]]
    _check_image(img)
    return [len(img.getbands()), img.height, img.width]


def get_image_size(img):
    """[width, height]."""
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img):
    return get_dimensions(img)[0]


def to_tensor(pic):
    """A PIL image or numpy array (H, W, C) to a tensor [C, H, W]; uint8 values scale to float [0, 1]."""
    if not (_is_pil(pic) or isinstance(pic, np.ndarray)):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        array = pic[:, :, None] if pic.ndim == 2 else pic
        img = ember.from_numpy(np.ascontiguousarray(array.transpose(2, 0, 1)))
        return img.float().div(255) if img.dtype == ember.uint8 else img
    img = pil_to_tensor(pic)
    if pic.mode == "1":
        img = img.mul(255)
    return img.float().div(255) if img.dtype == ember.uint8 else img


def pil_to_tensor(pic):
    """A PIL image to a tensor [C, H, W] of its own dtype (no scaling)."""
    if not _is_pil(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    dtypes = {"I": np.int32, "I;16": np.int16, "F": np.float32}
    array = np.array(pic, dtype=dtypes.get(pic.mode, np.uint8), copy=True)
    if array.ndim == 2:
        array = array[:, :, None]
    return ember.from_numpy(np.ascontiguousarray(array.transpose(2, 0, 1)))


def to_pil_image(pic, mode=None):
    """A tensor [C, H, W] (floats in [0, 1] scale to uint8) or numpy array (H, W, C) to a PIL image."""
    Image = _pil()
    if isinstance(pic, ember.Tensor):
        if pic.dim() not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.dim()} dimensions.")
        if pic.is_floating_point() and mode != "F":
            pic = pic.mul(255).byte()
        array = (pic.unsqueeze(0) if pic.dim() == 2 else pic).permute(1, 2, 0).contiguous().numpy()
    elif isinstance(pic, np.ndarray):
        array = pic[:, :, None] if pic.ndim == 2 else pic
    else:
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if array.shape[2] == 1:
        array = array[:, :, 0]
    return Image.fromarray(array, mode=mode) if mode else Image.fromarray(array)


def convert_image_dtype(image, dtype=ember.float32):
    _check_tensor(image, "image")
    return _V.convert_image_dtype(image, dtype)


def normalize(tensor, mean, std, inplace=False):
    _check_tensor(tensor, "img")
    mean = [float(m) for m in (mean if isinstance(mean, (list, tuple)) else [mean])]
    std = [float(s) for s in (std if isinstance(std, (list, tuple)) else [std])]
    out = _V.normalize(tensor, mean, std)
    return tensor.copy_(out) if inplace else out


def hflip(img):
    _check_image(img)
    return img.transpose(_pil().FLIP_LEFT_RIGHT) if _is_pil(img) else _V.hflip(img)


def vflip(img):
    _check_image(img)
    return img.transpose(_pil().FLIP_TOP_BOTTOM) if _is_pil(img) else _V.vflip(img)


def crop(img, top, left, height, width):
    _check_image(img)
    if _is_pil(img):
        return img.crop((left, top, left + width, top + height))
    return _V.crop(img, int(top), int(left), int(height), int(width))


def _size_pair(size, what="size"):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (tuple, list)) and len(size) == 1:
        return int(size[0]), int(size[0])
    if isinstance(size, (tuple, list)) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ValueError(f"Please provide only two dimensions (h, w) for {what}.")


def center_crop(img, output_size):
    _check_image(img)
    h, w = _size_pair(output_size, "size")
    if not _is_pil(img):
        return _V.center_crop(img, h, w)
    _, H, W = get_dimensions(img)
    if h > H or w > W:
        img = pad(img, [(w - W) // 2 if w > W else 0, (h - H) // 2 if h > H else 0,
                        (w - W + 1) // 2 if w > W else 0, (h - H + 1) // 2 if h > H else 0])
        _, H, W = get_dimensions(img)
        if (H, W) == (h, w):
            return img
    return crop(img, int(round((H - h) / 2.0)), int(round((W - w) / 2.0)), h, w)


def _padding_ltrb(padding):
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if isinstance(padding, (tuple, list)) and len(padding) not in (1, 2, 4):
        raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")
    if isinstance(padding, numbers.Number):
        padding = [padding]
    padding = [int(p) for p in padding]
    if len(padding) == 1:
        return padding * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return padding


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pads by an int (all sides), (left/right, top/bottom) or (left, top, right, bottom)."""
    _check_image(img)
    ltrb = _padding_ltrb(padding)
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    if not _is_pil(img):
        if not isinstance(fill, numbers.Number):
            raise TypeError("Got inappropriate fill arg")
        return _V.pad(img, ltrb, padding_mode, float(fill))
    l, t, r, b = ltrb
    if padding_mode == "constant":
        Image = _pil()
        out = Image.new(img.mode, (img.width + l + r, img.height + t + b), fill)
        if img.mode == "P" and img.getpalette():
            out.putpalette(img.getpalette())
        out.paste(img, (l, t))
        return out
    array = np.asarray(img)
    widths = [(t, b), (l, r)] + ([(0, 0)] if array.ndim == 3 else [])
    return _pil().fromarray(np.pad(array, widths, mode=padding_mode))


def _output_size(h, w, size, max_size):
    """Resize's target: (h, w) for a pair, else the short side made `size` (the long one capped by max_size)."""
    if isinstance(size, (list, tuple)) and len(size) == 2:
        if max_size is not None:
            raise ValueError("max_size should only be passed if size specifies the length of the smaller edge, "
                             "i.e. size should be an int or a sequence of length 1 in torchscript mode.")
        return int(size[0]), int(size[1])
    requested = int(size if isinstance(size, numbers.Number) else size[0])
    short, long = (w, h) if w <= h else (h, w)
    new_short, new_long = requested, int(requested * long / short)
    if max_size is not None:
        if max_size <= requested:
            raise ValueError(f"max_size = {max_size} must be strictly greater than the requested size for the "
                             f"smaller edge size = {size}")
        if new_long > max_size:
            new_short, new_long = int(max_size * new_short / new_long), max_size
    return (new_long, new_short) if w <= h else (new_short, new_long)


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    _check_image(img)
    if not isinstance(size, (int, list, tuple)) or (isinstance(size, (list, tuple)) and len(size) not in (1, 2)):
        raise TypeError(f"Size should be int or sequence of length 1 or 2. Got {size}")
    mode = _mode(interpolation)
    _, h, w = get_dimensions(img)
    oh, ow = _output_size(h, w, size, max_size)
    if (oh, ow) == (h, w):
        return img
    if _is_pil(img):
        return img.resize((ow, oh), _pil_resample(mode))
    return _V.resize(img, oh, ow, mode, bool(antialias) and mode == "bilinear")


def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    _check_image(img)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and (not isinstance(center, (list, tuple)) or len(center) != 2):
        raise TypeError("Argument center should be a sequence of length 2")
    mode = _mode(interpolation)
    if _is_pil(img):
        if isinstance(fill, (list, tuple)):
            fill = tuple(int(f) for f in fill) if len(fill) > 1 else int(fill[0])
        return img.rotate(angle, _pil_resample(mode), expand, center, fillcolor=fill)
    if fill is not None:
        fill = [float(f) for f in fill] if isinstance(fill, (list, tuple)) else [float(fill)]
    return _V.rotate(img, float(angle), mode, bool(expand), None if center is None else [float(c) for c in center],
                     fill or [])


def erase(img, i, j, h, w, v, inplace=False):
    _check_tensor(img)
    out = _V.erase(img, int(i), int(j), int(h), int(w), v)
    return img.copy_(out) if inplace else out


def rgb_to_grayscale(img, num_output_channels=1):
    _check_image(img)
    if _is_pil(img):
        gray = img.convert("L")
        return _pil().merge("RGB", [gray] * 3) if num_output_channels == 3 else gray
    return _V.rgb_to_grayscale(img, num_output_channels)


to_grayscale = rgb_to_grayscale


def _check_factor(factor, name):
    if factor < 0:
        raise ValueError(f"{name} ({factor}) is not non-negative.")


def _pil_enhance(img, kind, factor):
    from PIL import ImageEnhance
    return getattr(ImageEnhance, kind)(img).enhance(factor)


def adjust_brightness(img, brightness_factor):
    _check_image(img)
    _check_factor(brightness_factor, "brightness_factor")
    if _is_pil(img):
        return _pil_enhance(img, "Brightness", brightness_factor)
    return _V.adjust_brightness(img, float(brightness_factor))


def adjust_contrast(img, contrast_factor):
    _check_image(img)
    _check_factor(contrast_factor, "contrast_factor")
    if _is_pil(img):
        return _pil_enhance(img, "Contrast", contrast_factor)
    return _V.adjust_contrast(img, float(contrast_factor))


def adjust_saturation(img, saturation_factor):
    _check_image(img)
    _check_factor(saturation_factor, "saturation_factor")
    if _is_pil(img):
        return _pil_enhance(img, "Color", saturation_factor)
    return _V.adjust_saturation(img, float(saturation_factor))


def adjust_hue(img, hue_factor):
    _check_image(img)
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if not _is_pil(img):
        return _V.adjust_hue(img, float(hue_factor))
    if img.mode in ("L", "1", "I", "F"):
        return img
    Image = _pil()
    h, s, v = img.convert("HSV").split()
    shifted = (np.array(h, dtype=np.uint8).astype(np.int64) + int(hue_factor * 255)) % 256
    h = Image.fromarray(shifted.astype(np.uint8), "L")
    return Image.merge("HSV", (h, s, v)).convert(img.mode)

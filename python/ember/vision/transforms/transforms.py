"""torchvision.transforms' classes (v1): random parameters are drawn from Ember's default generator in
torchvision's order, so a seed gives the same crops, flips and jitters as torchvision with the same torch seed."""
import math
import numbers
import warnings

import numpy as np

import ember
from ember import nn
from . import functional as F
from .functional import InterpolationMode

__all__ = ["Compose", "ToTensor", "PILToTensor", "ToPILImage", "ConvertImageDtype", "Normalize", "Resize",
           "CenterCrop", "Pad", "Lambda", "RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip",
           "RandomResizedCrop", "RandomRotation", "ColorJitter", "RandomErasing", "Grayscale", "InterpolationMode"]


def _randint(high):
    return int(ember.randint(0, high, size=(1,)).item())


def _coin(p):
    """torch.rand(1) < p: the float32 draw against p rounded to float32, as the tensor comparison does."""
    return ember.rand(1).item() < float(np.float32(p))


def _uniform(low, high):
    return float(ember.empty(1).uniform_(low, high).item())


def _setup_size(size, error_msg):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (tuple, list)) and len(size) == 1:
        return size[0], size[0]
    if not isinstance(size, (tuple, list)) or len(size) != 2:
        raise ValueError(error_msg)
    return size[0], size[1]


def _log_ratio(ratio):
    """torchvision takes the log of the ratio range in float32."""
    return [float(v) for v in ember.log(ember.tensor([float(r) for r in ratio]))]


def _exp_uniform(low, high):
    return float(ember.exp(ember.empty(1).uniform_(low, high)).item())


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        lines = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}({lines}\n)"


class ToTensor:
    def __call__(self, pic):
        return F.to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class PILToTensor:
    def __call__(self, pic):
        return F.pil_to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class ToPILImage:
    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self):
        return f"{self.__class__.__name__}(mode={self.mode})"


class Lambda:
    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class ConvertImageDtype(nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def forward(self, image):
        return F.convert_image_dtype(image, self.dtype)


class Normalize(nn.Module):
    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean, self.std, self.inplace = mean, std, inplace

    def forward(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def _cpp(self):
        listed = [self.mean, self.std]
        mean, std = ([float(v) for v in (x if isinstance(x, (list, tuple)) else [x])] for x in listed)
        return ember._C._vision.Normalize(mean, std)

    def __repr__(self):
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Resize(nn.Module):
    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
        super().__init__()
        if not isinstance(size, (int, list, tuple)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, (list, tuple)) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size, self.interpolation, self.max_size, self.antialias = size, interpolation, max_size, antialias

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self):
        return (f"{self.__class__.__name__}(size={self.size}, interpolation={self.interpolation.value}, "
                f"max_size={self.max_size}, antialias={self.antialias})")


class CenterCrop(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size})"


class Pad(nn.Module):
    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        F._padding_ltrb(padding)
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self):
        return f"{self.__class__.__name__}(padding={self.padding}, fill={self.fill}, padding_mode={self.padding_mode})"


class RandomCrop(nn.Module):
    @staticmethod
    def get_params(img, output_size):
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger than input image size {(h, w)}")
        if w == tw and h == th:
            return 0, 0, h, w
        i = _randint(h - th + 1)
        j = _randint(w - tw + 1)
        return i, j, th, tw

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = tuple(_setup_size(size, "Please provide only two dimensions (h, w) for size."))
        if padding is not None:
            F._padding_ltrb(padding)
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, h, w = F.get_dimensions(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, [self.size[1] - w, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, [0, self.size[0] - h], self.fill, self.padding_mode)
        i, j, h, w = self.get_params(img, self.size)
        return F.crop(img, i, j, h, w)

    def _cpp(self):
        if self.pad_if_needed or not isinstance(self.fill, numbers.Number):
            return None
        ltrb = F._padding_ltrb(self.padding) if self.padding is not None else [0, 0, 0, 0]
        return ember._C._vision.RandomCrop(int(self.size[0]), int(self.size[1]), ltrb, self.padding_mode,
                                           float(self.fill))

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class RandomHorizontalFlip(nn.Module):
    _vertical = False

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        if _coin(self.p):
            return F.vflip(img) if self._vertical else F.hflip(img)
        return img

    def _cpp(self):
        return ember._C._vision.RandomFlip(float(self.p), self._vertical)

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomVerticalFlip(RandomHorizontalFlip):
    _vertical = True


class RandomResizedCrop(nn.Module):
    @staticmethod
    def get_params(img, scale, ratio):
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_ratio = _log_ratio(ratio)
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = _exp_uniform(log_ratio[0], log_ratio[1])
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return _randint(height - h + 1), _randint(width - w + 1), h, w
        in_ratio = float(width) / float(height)  # fallback: the central crop of the nearest allowed ratio
        if in_ratio < min(ratio):
            w, h = width, int(round(width / min(ratio)))
        elif in_ratio > max(ratio):
            h, w = height, int(round(height * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")
        if not isinstance(scale, (tuple, list)):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, (tuple, list)):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        self.scale, self.ratio, self.interpolation, self.antialias = scale, ratio, interpolation, antialias

    def forward(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, list(self.size), self.interpolation, antialias=self.antialias)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size}, scale={self.scale}, ratio={self.ratio})"


class RandomRotation(nn.Module):
    @staticmethod
    def get_params(degrees):
        return _uniform(float(degrees[0]), float(degrees[1]))

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        super().__init__()
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ValueError("If degrees is a single number, it must be positive.")
            degrees = [-degrees, degrees]
        elif not isinstance(degrees, (list, tuple)) or len(degrees) != 2:
            raise ValueError("If degrees is a sequence, it must be of len 2.")
        if center is not None and (not isinstance(center, (list, tuple)) or len(center) != 2):
            raise ValueError("If center is a sequence, it must be of len 2.")
        if fill is None:
            fill = 0
        elif not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.degrees = [float(d) for d in degrees]
        self.interpolation, self.expand, self.center, self.fill = interpolation, expand, center, fill

    def forward(self, img):
        fill = self.fill
        if isinstance(img, ember.Tensor):
            channels = F.get_image_num_channels(img)
            fill = [float(fill)] * channels if isinstance(fill, numbers.Number) else [float(f) for f in fill]
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill)

    def __repr__(self):
        return f"{self.__class__.__name__}(degrees={self.degrees}, interpolation={self.interpolation.value})"


class ColorJitter(nn.Module):
    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    @staticmethod
    def _check_input(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, but got {value}.")
        return None if value[0] == value[1] == center else tuple(value)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        fn_idx = ember.randperm(4)
        b, c, s, h = (None if r is None else _uniform(r[0], r[1]) for r in (brightness, contrast, saturation, hue))
        return fn_idx, b, c, s, h

    def forward(self, img):
        fn_idx, b, c, s, h = self.get_params(self.brightness, self.contrast, self.saturation, self.hue)
        steps = [(F.adjust_brightness, b), (F.adjust_contrast, c), (F.adjust_saturation, s), (F.adjust_hue, h)]
        for k in fn_idx.tolist():
            fn, factor = steps[k]
            if factor is not None:
                img = fn(img, factor)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(brightness={self.brightness}, contrast={self.contrast}, "
                f"saturation={self.saturation}, hue={self.hue})")


class RandomErasing(nn.Module):
    @staticmethod
    def get_params(img, scale, ratio, value=None):
        img_c, img_h, img_w = img.shape[-3], img.shape[-2], img.shape[-1]
        area = img_h * img_w
        log_ratio = _log_ratio(ratio)
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = _exp_uniform(log_ratio[0], log_ratio[1])
            h = int(round(math.sqrt(erase_area * aspect_ratio)))
            w = int(round(math.sqrt(erase_area / aspect_ratio)))
            if not (h < img_h and w < img_w):
                continue
            if value is None:
                v = ember.empty([img_c, h, w], dtype=ember.float32).normal_()
            else:
                v = ember.tensor(value)[:, None, None]
            i = _randint(img_h - h + 1)
            j = _randint(img_w - w + 1)
            return i, j, h, w, v
        return 0, 0, img_h, img_w, img

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, (tuple, list)):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, (tuple, list)):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, scale, ratio, value, inplace

    def forward(self, img):
        if not _coin(self.p):
            return img
        if isinstance(self.value, (int, float)):
            value = [float(self.value)]
        elif isinstance(self.value, str):
            value = None
        else:
            value = list(self.value)
        if value is not None and len(value) not in (1, img.shape[-3]):
            raise ValueError("If value is a sequence, it should have either a single value or "
                             f"{img.shape[-3]} (number of input channels)")
        x, y, h, w, v = self.get_params(img, self.scale, self.ratio, value)
        return F.erase(img, x, y, h, w, v, self.inplace)

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p}, scale={self.scale}, ratio={self.ratio}, value={self.value})"


class Grayscale(nn.Module):
    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, self.num_output_channels)


def _cpp_pipeline(transform):
    """The C++ transforms for a pipeline on ToTensor's output: None, one transform or a Compose (a leading
    ToTensor is what the C++ dataset does itself)."""
    steps = [] if transform is None else transform.transforms if isinstance(transform, Compose) else [transform]
    if steps and isinstance(steps[0], ToTensor):
        steps = steps[1:]
    out = []
    for t in steps:
        cpp = t._cpp() if hasattr(t, "_cpp") else None
        if cpp is None:
            raise TypeError(f"{t!r} has no C++ form: a C++ dataset takes ToTensor, RandomCrop (without "
                            "pad_if_needed), RandomHorizontalFlip, RandomVerticalFlip and Normalize")
        out.append(cpp)
    return out

"""ember.vision.transforms against equivalent torch tensor ops (torchvision cannot be installed here) and against
torchvision's documented random draws, replayed with torch's generator from the same seed."""
import colorsys
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
from ember.vision import transforms as T
from ember.vision.transforms import functional as F
from conftest import assert_same, pair_from_numpy

rng = np.random.default_rng(0)


def image(*shape, dtype="float32"):
    data = rng.integers(0, 256, shape) if dtype == "uint8" else rng.random(shape)
    return pair_from_numpy(data, dtype)


def same(e, t, atol=0.0):
    assert_same(e, t, check_strides=False, atol=atol, rtol=0.0 if atol == 0 else 1e-5)


@pytest.mark.parametrize("shape", [(3, 5, 7), (2, 3, 5, 7), (5, 7)])
@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_flips_crops(shape, dtype):
    e, t = image(*shape, dtype=dtype)
    same(F.hflip(e), t.flip(-1))
    same(F.vflip(e), t.flip(-2))
    same(F.crop(e, 1, 2, 3, 4), t[..., 1:4, 2:6])
    same(F.center_crop(e, [3, 4]), t[..., 1:4, 2:6])  # round((5 - 3) / 2), round((7 - 4) / 2)
    same(F.center_crop(e, 2), t[..., 2:4, 2:4])
    # Out of the image: zeros, as torchvision pads before cropping.
    same(F.crop(e, -1, 5, 4, 4), TF.pad(t, (0, 2, 1, 0))[..., 0:4, 5:9])
    same(F.center_crop(e, [7, 9]), TF.pad(t, (1, 1, 1, 1)))


@pytest.mark.parametrize("mode,torch_mode", [("constant", "constant"), ("edge", "replicate"), ("reflect", "reflect")])
def test_pad_modes(mode, torch_mode):
    e, t = image(2, 3, 5, 6)
    same(F.pad(e, [1, 2, 3, 4], padding_mode=mode), TF.pad(t, (1, 3, 2, 4), mode=torch_mode))
    same(F.pad(e, 2, padding_mode=mode), TF.pad(t, (2, 2, 2, 2), mode=torch_mode))
    same(F.pad(e, [1, 3], padding_mode=mode), TF.pad(t, (1, 1, 3, 3), mode=torch_mode))


def test_pad_symmetric_and_fill():
    e, t = image(3, 4, 5, dtype="uint8")
    want = np.pad(t.numpy(), [(0, 0), (2, 1), (3, 4)], mode="symmetric")
    np.testing.assert_array_equal(F.pad(e, [3, 2, 4, 1], padding_mode="symmetric").numpy(), want)
    same(F.pad(e, 2, fill=7), TF.pad(t, (2, 2, 2, 2), value=7))
    with pytest.raises(ValueError, match="Padding must be an int or a 1, 2, or 4 element tuple, not a 3"):
        F.pad(e, [1, 2, 3])
    with pytest.raises(ValueError, match="Padding mode should be either"):
        F.pad(e, 1, padding_mode="wrap")
    with pytest.raises(ValueError, match="Padding size should be less than"):
        F.pad(e, 5, padding_mode="reflect")


def test_normalize():
    e, t = image(2, 3, 4, 5)
    mean, std = [0.1, 0.2, 0.3], [0.5, 0.25, 2.0]
    want = (t - torch.tensor(mean).view(3, 1, 1)) / torch.tensor(std).view(3, 1, 1)
    same(F.normalize(e, mean, std), want)
    same(T.Normalize(mean, std)(e), want)
    leaf = e.clone().requires_grad_()
    F.normalize(leaf, mean, std).sum().backward()  # differentiable, as torch ops are
    same(leaf.grad, (1 / torch.tensor(std)).view(3, 1, 1).expand(2, 3, 4, 5))
    out = F.normalize(e, mean, std, inplace=True)
    assert out is e
    same(e, want)
    with pytest.raises(TypeError, match="Input tensor should be a float tensor. Got torch.uint8."):
        F.normalize(e.byte(), mean, std)
    with pytest.raises(ValueError, match="std evaluated to zero after conversion to torch.float32"):
        F.normalize(e, mean, [1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match=r"Expected tensor to be a tensor image of size \(..., C, H, W\)"):
        F.normalize(ember.zeros(4, 5), [0.0], [1.0])


@pytest.mark.parametrize("size", [(3, 4), (11, 13), (6, 14), (1, 1)])
@pytest.mark.parametrize("antialias", [True, False])
def test_resize_bilinear_matches_interpolate(size, antialias):
    e, t = image(2, 3, 7, 9)
    want = TF.interpolate(t, size=size, mode="bilinear", align_corners=False, antialias=antialias)
    same(F.resize(e, list(size), antialias=antialias), want, atol=1e-5)
    same(F.resize(e[0], list(size), antialias=antialias), want[0], atol=1e-5)  # one image, not a batch


def test_resize_nearest_uint8_and_short_side():
    e, t = image(3, 8, 12, dtype="uint8")
    same(F.resize(e, [4, 5], T.InterpolationMode.NEAREST), TF.interpolate(t[None], size=(4, 5), mode="nearest")[0])
    got = F.resize(e, [4, 6])
    want = TF.interpolate(t[None].float(), size=(4, 6), mode="bilinear", antialias=True)[0]
    assert got.dtype == ember.uint8
    assert (torch.from_numpy(got.numpy()).float() - want.round()).abs().max() <= 1
    assert tuple(F.resize(e, 4).shape) == (3, 4, 6)  # the short side becomes 4
    assert tuple(F.resize(e, 6, max_size=8).shape) == (3, 5, 8)
    assert F.resize(e, [8, 12]) is e
    with pytest.raises(NotImplementedError, match="bicubic"):
        F.resize(e, 4, T.InterpolationMode.BICUBIC)


def test_convert_image_dtype():
    e, t = image(3, 4, 5, dtype="uint8")
    same(F.convert_image_dtype(e, ember.float32), t.float() / 255)
    f, tf = image(3, 4, 5)
    same(F.convert_image_dtype(f, ember.uint8), (tf * (255 + 1 - 1e-3)).to(torch.uint8))
    same(F.convert_image_dtype(e, ember.int16), t.to(torch.int16) * 128)
    same(F.convert_image_dtype(e.to(ember.int16) * 128, ember.uint8), t)
    same(T.ConvertImageDtype(ember.float64)(e), t.double() / 255)
    with pytest.raises(RuntimeError, match="cannot be performed safely"):
        F.convert_image_dtype(f, ember.int32)


def test_erase():
    e, t = image(2, 3, 6, 7)
    v = ember.tensor([1.0, 2.0, 3.0])[:, None, None]
    want = t.clone()
    want[..., 1:4, 2:6] = torch.tensor([1.0, 2.0, 3.0])[:, None, None]
    same(F.erase(e, 1, 2, 3, 4, v), want)
    assert not np.array_equal(e.numpy(), want.numpy())
    assert F.erase(e, 1, 2, 3, 4, v, inplace=True) is e
    same(e, want)


def _grayscale(t):
    return 0.2989 * t[..., 0:1, :, :] + 0.587 * t[..., 1:2, :, :] + 0.114 * t[..., 2:3, :, :]


def test_color_adjustments():
    e, t = image(2, 3, 5, 6)
    same(F.adjust_brightness(e, 1.5), (t * 1.5).clamp(0, 1), atol=1e-6)
    mean = _grayscale(t).mean(dim=(-3, -2, -1), keepdim=True)
    same(F.adjust_contrast(e, 0.3), (0.3 * t + 0.7 * mean).clamp(0, 1), atol=1e-6)
    same(F.adjust_saturation(e, 2.0), (2.0 * t - 1.0 * _grayscale(t)).clamp(0, 1), atol=1e-6)
    same(F.rgb_to_grayscale(e), _grayscale(t), atol=1e-6)
    assert tuple(F.rgb_to_grayscale(e, 3).shape) == (2, 3, 5, 6)
    u, tu = image(3, 4, 4, dtype="uint8")
    same(F.adjust_brightness(u, 0.5), (tu.float() * 0.5).clamp(0, 255).to(torch.uint8))
    with pytest.raises(ValueError, match=r"brightness_factor \(-1.0\) is not non-negative."):
        F.adjust_brightness(e, -1.0)
    with pytest.raises(TypeError, match="permitted channel values are \\[1, 3\\], but found 2"):
        F.adjust_contrast(ember.rand(2, 4, 4), 0.5)


@pytest.mark.parametrize("factor", [-0.5, -0.2, 0.0, 0.3, 0.5])
def test_adjust_hue_matches_colorsys(factor):
    e, _ = image(3, 4, 5)
    got = F.adjust_hue(e, factor).numpy()
    pixels = e.numpy().reshape(3, -1).T
    want = []
    for r, g, b in pixels.astype(np.float64):
        h, s, v = colorsys.rgb_to_hsv(r, g, b)
        want.append(colorsys.hsv_to_rgb((h + factor) % 1.0, s, v))
    np.testing.assert_allclose(got.reshape(3, -1).T, np.array(want), atol=1e-5)
    with pytest.raises(ValueError, match=r"hue_factor \(0.7\) is not in \[-0.5, 0.5\]."):
        F.adjust_hue(e, 0.7)


def _rotate_reference(t, angle, mode, fill=None):
    """torch's grid_sample at the inverse-rotated pixel centres: the rotation torchvision's tensor path does (with
    a fill, blended by the sampled mask of the image's extent)."""
    n, c, h, w = t.shape
    a = math.radians(angle)
    ys, xs = torch.meshgrid(torch.arange(h, dtype=torch.float64) + 0.5 - h / 2,
                            torch.arange(w, dtype=torch.float64) + 0.5 - w / 2, indexing="ij")
    sx = math.cos(a) * xs - math.sin(a) * ys
    sy = math.sin(a) * xs + math.cos(a) * ys
    grid = torch.stack([sx / (w / 2), sy / (h / 2)], -1)[None].expand(n, h, w, 2)
    out = TF.grid_sample(t.double(), grid, mode=mode, padding_mode="zeros", align_corners=False)
    if fill is not None:
        mask = TF.grid_sample(torch.ones_like(t[:, :1]).double(), grid, mode=mode, padding_mode="zeros",
                              align_corners=False)
        out = out * mask + (1 - mask) * fill
    return out.to(t.dtype)


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_rotate(mode):
    e, t = image(2, 3, 6, 6)
    m = T.InterpolationMode(mode)
    for k in (1, 2, 3):
        same(F.rotate(e, 90.0 * k, m), torch.rot90(t, k, (-2, -1)), atol=1e-5)
    e, t = image(2, 3, 6, 8)
    same(F.rotate(e, 33.0, m), _rotate_reference(t, 33.0, mode), atol=1e-5)
    same(F.rotate(e, 90.0, m, expand=True), torch.rot90(t, 1, (-2, -1)), atol=1e-5)
    # expand: the rotated corners' bounding box, (8 + 6) / sqrt(2) = 9.9 each way.
    assert tuple(F.rotate(e, 45.0, m, expand=True).shape) == (2, 3, 10, 10)
    filled = F.rotate(e, 45.0, m, fill=[1.0, 2.0, 3.0]).numpy()
    assert (filled[0, :, 0, 0] == [1.0, 2.0, 3.0]).all()  # a corner that came from outside the image


def test_batch_forms_equal_per_image():
    e, _ = image(4, 3, 9, 11)
    for fn in (lambda x: F.resize(x, [5, 6]), lambda x: F.rotate(x, 20.0), F.hflip,
               lambda x: F.adjust_hue(x, 0.2), lambda x: F.pad(x, 2, padding_mode="symmetric")):
        batch = fn(e).numpy()
        for k in range(4):
            np.testing.assert_allclose(batch[k], fn(e[k]).numpy(), atol=1e-6)


# --- random transforms: torchvision's draws, replayed with torch's generator -------------------------------


def torch_randint(n):
    return int(torch.randint(0, n, size=(1,)).item())


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_random_crop_draws(seed):
    e, t = image(3, 28, 28)
    padded = TF.pad(t, (4, 4, 4, 4))
    torch.manual_seed(seed)
    i, j = torch_randint(36 - 28 + 1), torch_randint(36 - 28 + 1)
    ember.manual_seed(seed)
    same(T.RandomCrop(28, padding=4)(e), padded[:, i:i + 28, j:j + 28])
    ember.manual_seed(seed)
    assert T.RandomCrop.get_params(F.pad(e, 4), (28, 28)) == (i, j, 28, 28)
    # The whole image: no draw.
    ember.manual_seed(seed)
    T.RandomCrop(28)(e)
    torch.manual_seed(seed)
    assert float(ember.rand(1)) == float(torch.rand(1))


def test_random_crop_pad_if_needed_and_errors():
    e, t = image(3, 5, 6)
    # Too narrow by 2, too short by 3: torchvision pads that much on both sides, then crops at random.
    ember.manual_seed(3)
    out = T.RandomCrop((8, 8), pad_if_needed=True, padding_mode="edge")(e)
    torch.manual_seed(3)
    i, j = torch_randint(11 - 8 + 1), torch_randint(10 - 8 + 1)
    same(out, TF.pad(t[None], (2, 2, 3, 3), mode="replicate")[0][:, i:i + 8, j:j + 8])
    with pytest.raises(ValueError, match=r"Required crop size \(7, 8\) is larger than input image size \(5, 6\)"):
        T.RandomCrop((7, 8))(e)


@pytest.mark.parametrize("seed", [0, 5])
def test_random_flips_draw_rand(seed):
    e, t = image(3, 4, 5)
    torch.manual_seed(seed)
    flips = [bool(torch.rand(1) < 0.5) for _ in range(6)]
    ember.manual_seed(seed)
    for flip in flips:
        same(T.RandomHorizontalFlip()(e), t.flip(-1) if flip else t)
    ember.manual_seed(seed)
    for flip in flips:
        same(T.RandomVerticalFlip()(e), t.flip(-2) if flip else t)


@pytest.mark.parametrize("seed", [0, 2])
def test_random_resized_crop_draws(seed):
    e, t = image(3, 20, 30)
    torch.manual_seed(seed)
    log_ratio = torch.log(torch.tensor((3 / 4, 4 / 3)))
    while True:  # torchvision's get_params (the first attempt that fits)
        area = 600 * torch.empty(1).uniform_(0.08, 1.0).item()
        aspect = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
        w, h = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
        if 0 < w <= 30 and 0 < h <= 20:
            i, j = torch_randint(20 - h + 1), torch_randint(30 - w + 1)
            break
    ember.manual_seed(seed)
    assert T.RandomResizedCrop.get_params(e, (0.08, 1.0), (3 / 4, 4 / 3)) == (i, j, h, w)
    ember.manual_seed(seed)
    want = TF.interpolate(t[None, :, i:i + h, j:j + w], size=(8, 8), mode="bilinear", antialias=True)[0]
    same(T.RandomResizedCrop(8)(e), want, atol=1e-5)


def test_random_rotation_draws():
    e, t = image(1, 3, 7, 7)
    torch.manual_seed(4)
    angle = float(torch.empty(1).uniform_(-30.0, 30.0).item())
    ember.manual_seed(4)
    got = T.RandomRotation(30, interpolation=T.InterpolationMode.BILINEAR, fill=0.25)(e)
    same(got, _rotate_reference(t, angle, "bilinear", fill=0.25), atol=1e-5)
    with pytest.raises(ValueError, match="If degrees is a single number, it must be positive."):
        T.RandomRotation(-1)


def test_color_jitter_draws():
    e, t = image(3, 6, 6)
    torch.manual_seed(9)
    order = torch.randperm(4).tolist()
    b, c, s = (torch.empty(1).uniform_(0.6, 1.4).item() for _ in range(3))
    h = torch.empty(1).uniform_(-0.1, 0.1).item()
    want = e
    steps = {0: lambda x: F.adjust_brightness(x, b), 1: lambda x: F.adjust_contrast(x, c),
             2: lambda x: F.adjust_saturation(x, s), 3: lambda x: F.adjust_hue(x, h)}
    for k in order:
        want = steps[k](want)
    ember.manual_seed(9)
    got = T.ColorJitter(0.4, 0.4, 0.4, 0.1)(e)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-6)
    assert T.ColorJitter(brightness=0).brightness is None
    with pytest.raises(ValueError, match="If brightness is a single number, it must be non negative."):
        T.ColorJitter(brightness=-1)
    with pytest.raises(ValueError, match=r"hue values should be between \(-0.5, 0.5\)"):
        T.ColorJitter(hue=(0.0, 0.7))


def test_random_erasing_draws():
    e, t = image(3, 10, 12)
    torch.manual_seed(11)
    assert torch.rand(1) < 1.0
    log_ratio = torch.log(torch.tensor((0.3, 3.3)))
    while True:
        area = 120 * torch.empty(1).uniform_(0.02, 0.33).item()
        aspect = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
        h, w = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
        if h < 10 and w < 12:
            i, j = torch_randint(10 - h + 1), torch_randint(12 - w + 1)
            break
    want = t.clone()
    want[:, i:i + h, j:j + w] = 0.5
    ember.manual_seed(11)
    same(T.RandomErasing(p=1.0, value=0.5)(e), want)
    # value="random": normal noise drawn before the position, as torchvision.
    torch.manual_seed(11)
    torch.rand(1)
    area = 120 * torch.empty(1).uniform_(0.02, 0.33).item()
    aspect = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
    h, w = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
    assert h < 10 and w < 12  # this seed fits at the first attempt
    noise = torch.empty([3, h, w]).normal_()
    i, j = torch_randint(10 - h + 1), torch_randint(12 - w + 1)
    want = t.clone()
    want[:, i:i + h, j:j + w] = noise
    ember.manual_seed(11)
    same(T.RandomErasing(p=1.0, value="random")(e), want, atol=1e-6)
    with pytest.raises(ValueError, match="If value is str, it should be 'random'"):
        T.RandomErasing(value="zeros")
    with pytest.raises(ValueError, match="Random erasing probability should be between 0 and 1"):
        T.RandomErasing(p=2)


def test_compose_lambda_to_tensor_and_pil():
    from PIL import Image
    array = rng.integers(0, 256, (5, 6, 3)).astype(np.uint8)
    pic = Image.fromarray(array)
    want = torch.from_numpy(array).permute(2, 0, 1).float() / 255
    same(T.ToTensor()(pic), want)
    same(T.ToTensor()(array), want)
    same(T.PILToTensor()(pic), torch.from_numpy(array).permute(2, 0, 1).contiguous())
    pipeline = T.Compose([T.ToTensor(), T.Lambda(lambda x: x * 2), T.Normalize([1.0] * 3, [2.0] * 3)])
    same(pipeline(pic), (want * 2 - 1) / 2)
    with pytest.raises(TypeError, match="pic should be PIL Image or ndarray"):
        T.ToTensor()([1, 2])
    with pytest.raises(TypeError, match="Argument lambd should be callable"):
        T.Lambda(3)
    # PIL inputs go through Pillow's own operations and stay PIL images.
    np.testing.assert_array_equal(np.asarray(F.hflip(pic)), array[:, ::-1])
    np.testing.assert_array_equal(np.asarray(F.crop(pic, 1, 2, 3, 2)), array[1:4, 2:4])
    np.testing.assert_array_equal(np.asarray(F.pad(pic, 1, padding_mode="reflect")),
                                  np.pad(array, [(1, 1), (1, 1), (0, 0)], mode="reflect"))
    assert F.resize(pic, [3, 4]).size == (4, 3)
    assert F.center_crop(pic, 4).size == (4, 4)
    np.testing.assert_array_equal(np.asarray(F.to_pil_image(T.ToTensor()(pic))), array)


def test_bad_inputs_raise_not_crash():
    V = ember._C._vision
    with pytest.raises(ValueError, match="the angle must be finite"):
        F.rotate(ember.rand(1, 4, 4), float("nan"))
    assert tuple(F.resize(ember.rand(2, 1, 0, 4), [3, 3]).shape) == (2, 1, 3, 3)  # nothing to sample: zeros
    with pytest.raises(ValueError, match="cannot pad an empty image"):
        F.pad(ember.rand(1, 0, 0), 1, padding_mode="edge")
    with pytest.raises(RuntimeError, match="expanded size"):
        F.erase(ember.rand(3, 4, 4), 0, 0, 3, 3, ember.rand(2, 1, 1))
    with pytest.raises(ValueError, match="crop size must be positive"):
        V.RandomCrop(-1, 5, [0, 0, 0, 0])
    with pytest.raises(ValueError, match="padding must be non-negative"):
        V.RandomCrop(2, 2, [-9, 0, 0, 0])
    with pytest.raises(ValueError, match="one per image"):
        V.crop_pad(ember.rand(2, 1, 4, 4), [1, 2, 3], [0], 2, 2)
    with pytest.raises(TypeError, match="img should be PIL Image or Tensor"):
        F.hflip(np.zeros((3, 3)))


def test_random_transforms_on_pil_images():
    from PIL import Image, ImageEnhance
    array = rng.integers(0, 256, (12, 10, 3)).astype(np.uint8)
    pic = Image.fromarray(array)
    ember.manual_seed(0)
    out = T.Compose([T.RandomResizedCrop(8), T.RandomRotation(15), T.ColorJitter(0.3, 0.3, 0.3, 0.05),
                     T.RandomHorizontalFlip(), T.RandomCrop(6, padding=1, padding_mode="symmetric")])(pic)
    assert isinstance(out, Image.Image) and out.size == (6, 6) and out.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(F.adjust_brightness(pic, 0.5)),
                                  np.asarray(ImageEnhance.Brightness(pic).enhance(0.5)))
    np.testing.assert_array_equal(np.asarray(F.rotate(pic, 90.0, expand=True)), np.rot90(array))
    assert np.asarray(F.adjust_hue(pic, 0.0)).shape == (12, 10, 3)
    assert F.rgb_to_grayscale(pic).mode == "L" and F.rgb_to_grayscale(pic, 3).mode == "RGB"

"""torchvision.utils.make_grid / save_image: a batch of images tiled into one image, written as PNG by Pillow."""
import math

import ember

__all__ = ["make_grid", "save_image"]


def _scale_to_unit(t, value_range):
    low, high = value_range if value_range is not None else (float(t.min()), float(t.max()))
    t.clamp_(min=low, max=high)
    t.sub_(low).div_(max(high - low, 1e-5))


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    """Tiles a batch [B, C, H, W] (or a list of [C, H, W]) into a [C', rows, cols] image, nrow images per row,
    `padding` pixels of pad_value around each; one-channel images become three-channel."""
    if not (isinstance(tensor, ember.Tensor) or
            (isinstance(tensor, (list, tuple)) and all(isinstance(t, ember.Tensor) for t in tensor))):
        raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
    if isinstance(tensor, (list, tuple)):
        tensor = ember.stack(list(tensor), dim=0)
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        if tensor.shape[0] == 1:
            tensor = ember.cat((tensor, tensor, tensor), 0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 4 and tensor.shape[1] == 1:
        tensor = ember.cat((tensor, tensor, tensor), 1)
    if normalize:
        tensor = tensor.clone()
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("value_range has to be a tuple (min, max) if specified. min and max are numbers")
        for t in (tensor if scale_each else [tensor]):
            _scale_to_unit(t, value_range)
    if tensor.shape[0] == 1:
        return tensor.squeeze(0)
    nmaps = tensor.shape[0]
    xmaps = min(nrow, nmaps)
    ymaps = int(math.ceil(float(nmaps) / xmaps))
    height, width = int(tensor.shape[2] + padding), int(tensor.shape[3] + padding)
    grid = tensor.new_full((tensor.shape[1], height * ymaps + padding, width * xmaps + padding), pad_value)
    for k in range(nmaps):
        y, x = divmod(k, xmaps)
        grid.narrow(1, y * height + padding, height - padding).narrow(2, x * width + padding, width - padding).copy_(tensor[k])
    return grid


def save_image(tensor, fp, format=None, **kwargs):
    """make_grid(tensor, **kwargs) scaled from [0, 1] to bytes and saved by Pillow (PNG unless fp or format say)."""
    from PIL import Image
    grid = make_grid(tensor, **kwargs)
    array = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", ember.uint8).numpy()
    Image.fromarray(array.squeeze(-1) if array.shape[-1] == 1 else array).save(fp, format=format)

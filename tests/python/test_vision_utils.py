"""ember.vision.utils.make_grid / save_image against grids assembled here with torch ops."""
import numpy as np
import pytest
import torch

import ember
from ember.vision.utils import make_grid, save_image
from conftest import assert_same, pair_from_numpy


def expected_grid(t, nrow, padding, pad_value):
    b, c, h, w = t.shape
    cols = min(nrow, b)
    rows = -(-b // cols)
    grid = torch.full((c, rows * (h + padding) + padding, cols * (w + padding) + padding), float(pad_value))
    for k in range(b):
        y, x = divmod(k, cols)
        top, left = y * (h + padding) + padding, x * (w + padding) + padding
        grid[:, top:top + h, left:left + w] = t[k]
    return grid


@pytest.mark.parametrize("b,nrow,padding,pad_value", [(5, 2, 2, 0.0), (7, 8, 0, 0.5), (3, 3, 1, 1.0)])
def test_make_grid_layout(b, nrow, padding, pad_value):
    e, t = pair_from_numpy(np.random.default_rng(b).random((b, 3, 4, 5)))
    assert_same(make_grid(e, nrow=nrow, padding=padding, pad_value=pad_value),
                expected_grid(t, nrow, padding, pad_value), check_strides=False)
    assert_same(make_grid(list(e), nrow=nrow, padding=padding, pad_value=pad_value),
                expected_grid(t, nrow, padding, pad_value), check_strides=False)


def test_make_grid_gray_normalize_and_single():
    e, t = pair_from_numpy(np.random.default_rng(1).random((4, 1, 3, 3)) * 4 - 2)
    gray3 = t.expand(4, 3, 3, 3)
    assert_same(make_grid(e, nrow=2), expected_grid(gray3, 2, 2, 0.0), check_strides=False)
    lo, hi = float(t.min()), float(t.max())
    assert_same(make_grid(e, normalize=True), expected_grid((gray3 - lo) / (hi - lo), 8, 2, 0.0),
                check_strides=False, atol=1e-6, rtol=1e-6)
    clamped = (gray3.clamp(-1, 1) + 1) / 2
    assert_same(make_grid(e, normalize=True, value_range=(-1, 1)), expected_grid(clamped, 8, 2, 0.0),
                check_strides=False, atol=1e-6, rtol=1e-6)
    each = torch.stack([(x - x.min()) / (x.max() - x.min()) for x in gray3])
    assert_same(make_grid(e, normalize=True, scale_each=True), expected_grid(each, 8, 2, 0.0),
                check_strides=False, atol=1e-6, rtol=1e-6)
    assert tuple(make_grid(e[0]).shape) == (3, 3, 3)  # one image: no padding
    assert tuple(make_grid(e[0, 0]).shape) == (3, 3, 3)
    with pytest.raises(TypeError, match="value_range has to be a tuple"):
        make_grid(e, normalize=True, value_range=[0, 1])
    with pytest.raises(TypeError, match="tensor or list of tensors expected"):
        make_grid(3)


def test_save_image_png(tmp_path):
    from PIL import Image
    e, t = pair_from_numpy(np.random.default_rng(2).random((6, 3, 4, 4)))
    path = tmp_path / "grid.png"
    save_image(e, str(path), nrow=3, padding=1)
    want = (expected_grid(t, 3, 1, 0.0) * 255 + 0.5).clamp(0, 255).to(torch.uint8).permute(1, 2, 0).numpy()
    with Image.open(path) as img:
        assert img.format == "PNG"
        np.testing.assert_array_equal(np.asarray(img), want)
    with open(tmp_path / "out.bin", "wb") as f:
        save_image(e[0], f, format="PNG")
    with Image.open(tmp_path / "out.bin") as img:
        assert img.format == "PNG" and img.size == (4, 4)

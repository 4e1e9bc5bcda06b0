// Sub-pixel rearrangements: torch.nn.functional.pixel_shuffle / pixel_unshuffle (also torch.pixel_shuffle,
// torch.pixel_unshuffle).
#pragma once

#include "ember/tensor.h"

namespace ember::nn::functional {

// (*, C * r * r, H, W) -> (*, C, H * r, W * r).
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
// (*, C, H * r, W * r) -> (*, C * r * r, H, W).
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);

}  // namespace ember::nn::functional

namespace ember::nn::functional {

// Sliding 2-D blocks (im2col): (N, C, H, W) or (C, H, W) -> (N, C * kh * kw, L), L the number of block positions.
Tensor unfold(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation = {1, 1}, IntArrayRef padding = {0, 0},
              IntArrayRef stride = {1, 1});
// The reverse sum (col2im): (N, C * kh * kw, L) or (C * kh * kw, L) -> (N, C, output_size...), overlaps added.
Tensor fold(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation = {1, 1},
            IntArrayRef padding = {0, 0}, IntArrayRef stride = {1, 1});

}  // namespace ember::nn::functional

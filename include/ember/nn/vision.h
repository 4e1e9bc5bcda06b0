// Spatial rearrangements: torch.nn.functional.pixel_shuffle / pixel_unshuffle (also torch.pixel_shuffle,
// torch.pixel_unshuffle), unfold / fold, and the upsampling behind interpolate.
#pragma once
#include <vector>

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

namespace ember::nn::functional {

enum class UpsampleMode { Nearest, NearestExact, Linear };
// Resizes the dims after the first two (1 to 3 of them) to output_size by nearest, nearest-exact or (bi/tri)linear
// interpolation (torch's upsample_* kernels). scales: torch's scale_factors, one per resized dim, or empty; where
// given, the source index uses 1 / scale, else in / out.
Tensor upsample(const Tensor& input, IntArrayRef output_size, UpsampleMode mode, bool align_corners = false,
                const std::vector<double>& scales = {});

}  // namespace ember::nn::functional

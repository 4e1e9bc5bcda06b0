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

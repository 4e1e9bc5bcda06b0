// Dropout as functions: torch.nn.functional's dropout, dropout1d/2d/3d (whole channels), alpha_dropout and
// feature_alpha_dropout (ember::nn::functional), and torch's dropout / feature_dropout / alpha_dropout /
// feature_alpha_dropout with their in-place forms. Masks are drawn as torch's CPU bernoulli_ draws them (one 53-bit
// uniform per element in memory order), so a manual_seed gives torch's masks.
#pragma once

#include "ember/tensor.h"

namespace ember::nn::functional {

// Zeroes elements with probability p and scales the rest by 1 / (1 - p) when training; else returns input.
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
// Zeroes whole channels: (C, L) / (N, C, L), (N, C, H, W) and (C, D, H, W) / (N, C, D, H, W) inputs.
Tensor dropout1d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
Tensor dropout3d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
// SELU-preserving dropout: dropped elements take the negative saturation value, then an affine map keeps the mean
// and variance.
Tensor alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false);
Tensor feature_alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false);

}  // namespace ember::nn::functional

namespace ember {

// torch.dropout & co.: no range check of p beyond torch's RuntimeError; `train` false returns input itself.
Tensor dropout(const Tensor& input, double p, bool train);
Tensor& dropout_(Tensor& input, double p, bool train);
Tensor feature_dropout(const Tensor& input, double p, bool train);
Tensor& feature_dropout_(Tensor& input, double p, bool train);
Tensor alpha_dropout(const Tensor& input, double p, bool train);
Tensor& alpha_dropout_(Tensor& input, double p, bool train);
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train);
Tensor& feature_alpha_dropout_(Tensor& input, double p, bool train);

}  // namespace ember

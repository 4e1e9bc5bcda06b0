// torch.nn.utils: gradient clipping and flattening parameters to one vector.
#pragma once
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::utils {

// Scales the gradients so that their total norm (of order norm_type; inf for the max) is at most max_norm;
// returns the total norm before clipping. A non-finite norm raises when error_if_nonfinite.
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// Clamps every gradient to [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
// Copies consecutive slices of vec into the parameters (their data replaced, as torch's param.data = ...).
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils

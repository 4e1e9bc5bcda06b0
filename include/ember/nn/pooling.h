// Pooling, functional forms (torch.nn.functional / torch.max_pool*): max (with indices, dilation, ceil_mode), average
// (count_include_pad, divisor_override) and adaptive pooling over 1 or 2 spatial dims, batched (N, C, *) or not
// (C, *). The 1-d forms are the 2-d ones over a unit height, as in torch. An empty stride means the kernel size.
// Indices count positions within each (H, W) plane, as torch's.
#pragma once
#include <optional>
#include <utility>

#include "ember/tensor.h"

namespace ember::nn::functional {

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                  IntArrayRef padding = {0}, IntArrayRef dilation = {1},
                                                  bool ceil_mode = false);
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  IntArrayRef dilation = {1}, bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                  IntArrayRef padding = {0}, IntArrayRef dilation = {1},
                                                  bool ceil_mode = false);
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  IntArrayRef dilation = {1}, bool ceil_mode = false);

Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor& avg_pool2d_out(Tensor& out, const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                       IntArrayRef padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                       std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true);

// output_size entries of -1 keep the input's size (Python's None).
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size);
std::pair<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size);

// The gradient of a max pooling: grad_output's elements added into a zero tensor shaped as input at `indices`.
Tensor max_pool_backward(const Tensor& grad_output, const Tensor& input, const Tensor& indices);

}  // namespace ember::nn::functional

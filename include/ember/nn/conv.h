// Convolutions, functional forms (torch.nn.functional / torch.conv*): 1-3 spatial dims, stride, padding (numbers,
// or "same"/"valid"), dilation, groups, bias; transposed convolutions with output_padding. Inputs come batched
// (N, C, *spatial) or unbatched (C, *spatial); errors and gradients (ConvolutionBackward0) follow torch 2.13.
// Lists of one element apply to every spatial dim, as torch's C++ API.
#pragma once
#include <array>
#include <optional>
#include <string_view>
#include <tuple>

#include "ember/tensor.h"

namespace ember::nn::functional {

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {}, IntArrayRef stride = {1},
              IntArrayRef padding = {0}, IntArrayRef dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {}, IntArrayRef stride = {1},
              IntArrayRef padding = {0}, IntArrayRef dilation = {1}, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {}, IntArrayRef stride = {1},
              IntArrayRef padding = {0}, IntArrayRef dilation = {1}, int64_t groups = 1);
// padding "same" (output size = input size; stride 1 only) or "valid" (no padding).
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = {1}, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = {1}, int64_t groups = 1);

// weight (C_in, C_out / groups, *kernel); output size (I - 1) * stride - 2 * padding + dilation * (K - 1) +
// output_padding + 1.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                        IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                        int64_t groups = 1, IntArrayRef dilation = {1});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                        IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                        int64_t groups = 1, IntArrayRef dilation = {1});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                        IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                        int64_t groups = 1, IntArrayRef dilation = {1});

// torch.convolution: batched input only, full-length parameter lists.
Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups);
// The gradients of convolution (input, weight, bias) for the entries of output_mask (others undefined).
std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
                                                        IntArrayRef dilation, bool transposed,
                                                        IntArrayRef output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask);

// Whether torch 2.13 runs a convolution (or transposed one) of a `dtype` input of `batch` samples and `numel`
// elements through mkldnn rather than its slow im2col path: float32, and grouped, batched, over 20480 input elements
// or with every kernel dim over 3 (a 1-d kernel has height 1).
bool conv_uses_mkldnn(ScalarType dtype, int64_t batch, int64_t numel, const Tensor& weight, int64_t groups);

}  // namespace ember::nn::functional

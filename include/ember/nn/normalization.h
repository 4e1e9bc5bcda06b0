// Normalisation layers as functions: torch.nn.functional's batch_norm, instance_norm, layer_norm, group_norm,
// rms_norm and local_response_norm (ember::nn::functional), and torch's own batch_norm / layer_norm / group_norm /
// instance_norm (argument orders as torch.*).
#pragma once
#include <optional>

#include "ember/tensor.h"

namespace ember::nn::functional {

using OptionalTensor = std::optional<Tensor>;

// Normalises each channel (dim 1) of a (N, C, ...) input by the batch's statistics (training) or by running_mean /
// running_var (eval), then scales by weight and shifts by bias. In training, running_mean/var (when given) are
// updated in place: r = (1 - momentum) * r + momentum * stat, the variance unbiased.
Tensor batch_norm(const Tensor& input, const OptionalTensor& running_mean, const OptionalTensor& running_var,
                  const OptionalTensor& weight = {}, const OptionalTensor& bias = {}, bool training = false,
                  double momentum = 0.1, double eps = 1e-5);
// batch_norm over each sample's channels separately (statistics over the spatial dims); running stats, when given
// and use_input_stats, are updated with the mean over the batch.
Tensor instance_norm(const Tensor& input, const OptionalTensor& running_mean = {}, const OptionalTensor& running_var = {},
                     const OptionalTensor& weight = {}, const OptionalTensor& bias = {}, bool use_input_stats = true,
                     double momentum = 0.1, double eps = 1e-5);
// Normalises over the last normalized_shape.size() dims, then weight * y + bias (both of normalized_shape).
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const OptionalTensor& weight = {},
                  const OptionalTensor& bias = {}, double eps = 1e-5);
// Normalises each of num_groups groups of channels of each sample; weight and bias are per channel.
Tensor group_norm(const Tensor& input, int64_t num_groups, const OptionalTensor& weight = {},
                  const OptionalTensor& bias = {}, double eps = 1e-5);
// x / sqrt(mean(x^2) + eps) over the last dims, times weight; eps defaults to the dtype's epsilon.
Tensor rms_norm(const Tensor& input, IntArrayRef normalized_shape, const OptionalTensor& weight = {},
                std::optional<double> eps = {});
// Normalises each element by the squares of `size` neighbouring channels: x / (k + alpha * mean)^beta.
Tensor local_response_norm(const Tensor& input, int64_t size, double alpha = 1e-4, double beta = 0.75, double k = 1.0);

}  // namespace ember::nn::functional

namespace ember {

// torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled): the
// functional form without its batch-size check.
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled = false);
// torch.instance_norm and torch.group_norm: the functional forms without their size checks.
Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                     const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                     bool use_input_stats, double momentum, double eps, bool cudnn_enabled = false);
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight = {},
                  const std::optional<Tensor>& bias = {}, double eps = 1e-5, bool cudnn_enabled = false);

}  // namespace ember

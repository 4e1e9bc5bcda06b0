// Activation functions of torch.nn.functional (ember::nn::functional), with torch's names, argument order and
// defaults. `inplace` writes into `input` (a handle to the same tensor) and returns it, as torch's forms do.
#pragma once
#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember::nn::functional {

Tensor relu(const Tensor& input, bool inplace = false);
Tensor relu6(const Tensor& input, bool inplace = false);
Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01, bool inplace = false);
Tensor elu(const Tensor& input, double alpha = 1.0, bool inplace = false);
Tensor selu(const Tensor& input, bool inplace = false);
Tensor celu(const Tensor& input, double alpha = 1.0, bool inplace = false);
Tensor gelu(const Tensor& input, std::string_view approximate = "none");
Tensor silu(const Tensor& input, bool inplace = false);
Tensor mish(const Tensor& input, bool inplace = false);
Tensor sigmoid(const Tensor& input);
Tensor tanh(const Tensor& input);
Tensor softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor softmin(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor softplus(const Tensor& input, double beta = 1.0, double threshold = 20.0);
Tensor softsign(const Tensor& input);
Tensor hardtanh(const Tensor& input, double min_val = -1.0, double max_val = 1.0, bool inplace = false);
Tensor hardswish(const Tensor& input, bool inplace = false);
Tensor hardsigmoid(const Tensor& input, bool inplace = false);
Tensor threshold(const Tensor& input, double threshold, double value, bool inplace = false);
Tensor glu(const Tensor& input, int64_t dim = -1);
Tensor prelu(const Tensor& input, const Tensor& weight);
// Training: negative elements scaled by a uniform sample in [lower, upper] (torch's generator stream); else
// leaky_relu with slope (lower + upper) / 2.
Tensor rrelu(const Tensor& input, double lower = 1.0 / 8, double upper = 1.0 / 3, bool training = false,
             bool inplace = false);
Tensor logsigmoid(const Tensor& input);
Tensor tanhshrink(const Tensor& input);
Tensor softshrink(const Tensor& input, double lambd = 0.5);
Tensor hardshrink(const Tensor& input, double lambd = 0.5);

// The in-place functions (F.relu_, F.elu_, torch.selu_ ...): they write into `input` and return it.
Tensor relu_(const Tensor& input);
Tensor leaky_relu_(const Tensor& input, double negative_slope = 0.01);
Tensor elu_(const Tensor& input, double alpha = 1.0);
Tensor selu_(const Tensor& input);
Tensor celu_(const Tensor& input, double alpha = 1.0);
Tensor hardtanh_(const Tensor& input, double min_val = -1.0, double max_val = 1.0);
Tensor threshold_(const Tensor& input, double threshold, double value);
Tensor rrelu_(const Tensor& input, double lower = 1.0 / 8, double upper = 1.0 / 3, bool training = false);

}  // namespace ember::nn::functional

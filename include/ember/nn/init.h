// torch.nn.init: in-place initialisers, run without recording gradients. With the same manual_seed they draw
// torch's numbers (the generator's uniform_/normal_ streams are torch's).
#pragma once
#include <optional>
#include <string_view>
#include <utility>

#include "ember/random.h"
#include "ember/tensor.h"

namespace ember::nn::init {

// The recommended gain for a nonlinearity ("relu", "leaky_relu" with its negative slope `param`, "tanh", ...).
double calculate_gain(std::string_view nonlinearity, std::optional<double> param = std::nullopt);
// (fan_in, fan_out) of a weight of at least 2 dims: size(1) and size(0) times the receptive field.
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor uniform_(const Tensor& tensor, double a = 0.0, double b = 1.0, Generator* generator = nullptr);
Tensor normal_(const Tensor& tensor, double mean = 0.0, double std = 1.0, Generator* generator = nullptr);
Tensor trunc_normal_(const Tensor& tensor, double mean = 0.0, double std = 1.0, double a = -2.0, double b = 2.0,
                     Generator* generator = nullptr);
Tensor constant_(const Tensor& tensor, const Scalar& val);
Tensor ones_(const Tensor& tensor);
Tensor zeros_(const Tensor& tensor);
Tensor eye_(const Tensor& tensor);
Tensor dirac_(const Tensor& tensor, int64_t groups = 1);
Tensor xavier_uniform_(const Tensor& tensor, double gain = 1.0, Generator* generator = nullptr);
Tensor xavier_normal_(const Tensor& tensor, double gain = 1.0, Generator* generator = nullptr);
Tensor kaiming_uniform_(const Tensor& tensor, double a = 0.0, std::string_view mode = "fan_in",
                        std::string_view nonlinearity = "leaky_relu", Generator* generator = nullptr);
Tensor kaiming_normal_(const Tensor& tensor, double a = 0.0, std::string_view mode = "fan_in",
                       std::string_view nonlinearity = "leaky_relu", Generator* generator = nullptr);
Tensor orthogonal_(const Tensor& tensor, double gain = 1.0, Generator* generator = nullptr);
Tensor sparse_(const Tensor& tensor, double sparsity, double std = 0.01, Generator* generator = nullptr);

}  // namespace ember::nn::init

// Linear layers (torch.nn.Linear, Bilinear, Identity, Flatten, Unflatten) and their functional forms.
#pragma once
#include <optional>

#include "ember/nn/module.h"

namespace ember::nn {

namespace functional {
// y = x W^T + b over the last dim of x (torch.nn.functional.linear).
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt);
Tensor& linear_out(Tensor& out, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt);
// y_k = x1^T W_k x2 + b_k (torch.nn.functional.bilinear).
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const std::optional<Tensor>& bias = std::nullopt);
}  // namespace functional

// A factory's dtype and device for a layer's parameters (torch's factory_kwargs).
struct LayerOptions {
  std::optional<ScalarType> dtype;
  Device device = kCPU;
  TensorOptions tensor_options() const { return TensorOptions(dtype.value_or(default_dtype())).device(device); }
};

class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true, const LayerOptions& options = {});
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();  // torch's: kaiming_uniform_(a=sqrt(5)) and a uniform bias
  int64_t in_features, out_features;
  Tensor& weight;  // the registered slots: assignments and load_state_dict are seen here
  Tensor& bias;
};

class Bilinear : public Module {
 public:
  Bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias = true,
           const LayerOptions& options = {});
  using Module::forward;
  Tensor forward(const Tensor& input1, const Tensor& input2);
  std::string extra_repr() const override;
  void reset_parameters();
  int64_t in1_features, in2_features, out_features;
  Tensor& weight;
  Tensor& bias;
};

class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  Tensor forward(const Tensor& input) override { return input; }
};

class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : Module("Flatten"), start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& input) override { return input.flatten(start_dim, end_dim); }
  std::string extra_repr() const override;
  int64_t start_dim, end_dim;
};

class Unflatten : public Module {
 public:
  Unflatten(int64_t dim, IntArrayRef unflattened_size)
      : Module("Unflatten"), dim(dim), unflattened_size(unflattened_size) {}
  Tensor forward(const Tensor& input) override { return input.unflatten(dim, unflattened_size); }
  std::string extra_repr() const override;
  int64_t dim;
  DimVector unflattened_size;
};

}  // namespace ember::nn

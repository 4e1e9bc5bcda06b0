// Linear, Bilinear, Identity, Flatten, Unflatten and F.linear / F.bilinear.
#include "../core/autocast_policy.h"
#include "ember/nn/linear.h"

#include <cmath>

#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/math_ops.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "ember/reduce.h"

namespace ember::nn {

namespace functional {

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  EMBER_AUTOCAST(lower, kBoth, linear, input, weight, bias);
  EMBER_CHECK(weight.defined(), TypeError, "linear(): argument 'weight' (position 2) must be Tensor, not NoneType");
  bool has_bias = bias && bias->defined();
  if (has_bias && input.dim() == 2) return addmm(*bias, input, weight.t());
  if (has_bias && input.is_contiguous()) {  // torch's fused path for other dims: one addmm, then a view
    DimVector out_sizes(input.sizes());
    out_sizes.back() = weight.size(0);
    return addmm(*bias, input.view({-1, input.size(-1)}), weight.t()).view(out_sizes);
  }
  Tensor out = matmul(input, weight.t());
  return has_bias ? out + *bias : out;
}

Tensor& linear_out(Tensor& out, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  check_out_dtype(out, input.dtype());
  const Tensor* b = bias && bias->defined() ? &*bias : &input;
  return composite_out(out, {&input, &weight, b}, "linear", [&] { return linear(input, weight, bias); });
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const std::optional<Tensor>& bias) {
  EMBER_AUTOCAST(promote, kCUDA, bilinear, input1, input2, weight, bias);
  EMBER_AUTOCAST(keep, kCPU, bilinear, input1, input2, weight, bias);
  EMBER_CHECK(weight.defined(), TypeError, "bilinear(): argument 'weight' (position 3) must be Tensor, not NoneType");
  EMBER_CHECK(input1.dim() == input2.dim(), Error, "bilinear(): input dimensions do not match: got ", input1.dim(),
              " and ", input2.dim());
  for (int64_t i = 0; i + 1 < input1.dim(); ++i)
    EMBER_CHECK(input1.size(i) == input2.size(i), Error, "bilinear(): input batch dimensions do not match at dim ", i,
                ": got ", input1.size(i), " and ", input2.size(i));
  EMBER_CHECK(weight.dim() == 3, Error, "bilinear(): weight must be 3-dimensional, got ", weight.dim(), " dims");
  int64_t out = weight.size(0), in1 = weight.size(1), in2 = weight.size(2);
  EMBER_CHECK(input1.size(-1) == in1, Error, "bilinear(): input1 size does not match weight size: got ",
              input1.size(-1), " but expected ", in1);
  EMBER_CHECK(input2.size(-1) == in2, Error, "bilinear(): input2 size does not match weight size: got ",
              input2.size(-1), " but expected ", in2);
  bool has_bias = bias && bias->defined();
  EMBER_CHECK(!has_bias || bias->size(0) == out, Error, "bilinear(): bias size does not match weight size: got ",
              bias->size(0), " but expected ", out);
  // x1 W_k x2 for every k: (B, in1) @ (in1, out * in2), then a dot with x2 over in2.
  Tensor x1 = input1.reshape({-1, in1}), x2 = input2.reshape({-1, 1, in2});
  Tensor t = matmul(x1, weight.permute({1, 0, 2}).reshape({in1, out * in2})).view({-1, out, in2});
  Tensor y = (t * x2).sum({-1}, false, t.dtype());
  DimVector out_sizes(input1.sizes());
  out_sizes.back() = out;
  y = y.reshape(out_sizes);
  return has_bias ? y + *bias : y;
}

}  // namespace functional

Linear::Linear(int64_t in_features, int64_t out_features, bool bias, const LayerOptions& options)
    : Module("Linear"),
      in_features(in_features),
      out_features(out_features),
      weight(register_parameter("weight", empty({out_features, in_features}, options.tensor_options()))),
      bias(register_parameter("bias", bias ? empty({out_features}, options.tensor_options()) : Tensor())) {
  reset_parameters();
}

void Linear::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    double bound = fan_in > 0 ? 1 / std::sqrt(double(fan_in)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor Linear::forward(const Tensor& input) {
  return functional::linear(input, weight, optional_tensor(bias));
}

std::string Linear::extra_repr() const {
  return str("in_features=", in_features, ", out_features=", out_features, ", bias=", bias.defined() ? "True" : "False");
}

Bilinear::Bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias,
                   const LayerOptions& options)
    : Module("Bilinear"),
      in1_features(in1_features),
      in2_features(in2_features),
      out_features(out_features),
      weight(register_parameter("weight", empty({out_features, in1_features, in2_features}, options.tensor_options()))),
      bias(register_parameter("bias", bias ? empty({out_features}, options.tensor_options()) : Tensor())) {
  reset_parameters();
}

void Bilinear::reset_parameters() {
  double bound = 1 / std::sqrt(double(weight.size(1)));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor Bilinear::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, weight, optional_tensor(bias));
}

std::string Bilinear::extra_repr() const {
  return str("in1_features=", in1_features, ", in2_features=", in2_features, ", out_features=", out_features,
             ", bias=", bias.defined() ? "True" : "False");
}

std::string Flatten::extra_repr() const { return str("start_dim=", start_dim, ", end_dim=", end_dim); }

std::string Unflatten::extra_repr() const {
  std::string sizes;
  for (size_t i = 0; i < unflattened_size.size(); ++i) sizes += (i ? ", " : "") + std::to_string(unflattened_size[i]);
  if (unflattened_size.size() == 1) sizes += ",";
  return str("dim=", dim, ", unflattened_size=(", sizes, ")");
}

}  // namespace ember::nn

// The activation modules of ember/nn/modules_activation.h.
#include "ember/nn/modules_activation.h"

#include "ember/creation.h"
#include "ember/nn/activation.h"
#include "ember/nn/init.h"

namespace ember::nn {

namespace F = functional;

namespace {
std::string inplace_suffix(bool inplace) { return inplace ? ", inplace=True" : ""; }
}  // namespace

Sigmoid::Sigmoid() : Elementwise("Sigmoid", &F::sigmoid) {}
Tanh::Tanh() : Elementwise("Tanh", &F::tanh) {}
Softsign::Softsign() : Elementwise("Softsign", &F::softsign) {}
Tanhshrink::Tanhshrink() : Elementwise("Tanhshrink", &F::tanhshrink) {}
LogSigmoid::LogSigmoid() : Elementwise("LogSigmoid", &F::logsigmoid) {}

ReLU::ReLU(bool inplace) : InplaceActivation("ReLU", &F::relu, inplace) {}
SELU::SELU(bool inplace) : InplaceActivation("SELU", &F::selu, inplace) {}
SiLU::SiLU(bool inplace) : InplaceActivation("SiLU", &F::silu, inplace) {}
Mish::Mish(bool inplace) : InplaceActivation("Mish", &F::mish, inplace) {}
Hardswish::Hardswish(bool inplace) : InplaceActivation("Hardswish", &F::hardswish, inplace, false) {}
Hardsigmoid::Hardsigmoid(bool inplace) : InplaceActivation("Hardsigmoid", &F::hardsigmoid, inplace, false) {}

Hardtanh::Hardtanh(double min_val, double max_val, bool inplace) : Hardtanh("Hardtanh", min_val, max_val, inplace) {}

Hardtanh::Hardtanh(std::string name, double min_val, double max_val, bool inplace)
    : Module(std::move(name)), min_val(min_val), max_val(max_val), inplace(inplace) {
  EMBER_CHECK(max_val > min_val, ValueError, "max_val (", repr_float(max_val),
              ") must be greater than min_val (", repr_float(min_val), ")");
}

Tensor Hardtanh::forward(const Tensor& input) { return F::hardtanh(input, min_val, max_val, inplace); }

std::string Hardtanh::extra_repr() const {
  return str("min_val=", repr_float(min_val), ", max_val=", repr_float(max_val), inplace_suffix(inplace));
}

ReLU6::ReLU6(bool inplace) : Hardtanh("ReLU6", 0.0, 6.0, inplace) {}

Tensor LeakyReLU::forward(const Tensor& input) { return F::leaky_relu(input, negative_slope, inplace); }

std::string LeakyReLU::extra_repr() const {
  return str("negative_slope=", repr_float(negative_slope), inplace_suffix(inplace));
}

std::string AlphaActivation::extra_repr() const { return str("alpha=", repr_float(alpha), inplace_suffix(inplace)); }

ELU::ELU(double alpha, bool inplace) : AlphaActivation("ELU", &F::elu, alpha, inplace) {}
CELU::CELU(double alpha, bool inplace) : AlphaActivation("CELU", &F::celu, alpha, inplace) {}

PReLU::PReLU(int64_t num_parameters, double init, const LayerOptions& options)
    : Module("PReLU"),
      num_parameters(num_parameters),
      init(init),
      weight(register_parameter("weight", empty({num_parameters}, options.tensor_options()))) {
  reset_parameters();
}

void PReLU::reset_parameters() { init::constant_(weight, init); }

Tensor PReLU::forward(const Tensor& input) { return F::prelu(input, weight); }

std::string PReLU::extra_repr() const { return str("num_parameters=", num_parameters); }

Tensor RReLU::forward(const Tensor& input) { return F::rrelu(input, lower, upper, is_training(), inplace); }

std::string RReLU::extra_repr() const {
  return str("lower=", repr_float(lower), ", upper=", repr_float(upper), inplace_suffix(inplace));
}

Tensor GELU::forward(const Tensor& input) { return F::gelu(input, approximate); }

Tensor SoftmaxFamily::forward(const Tensor& input) {
  if (dim) return fn_(input, *dim, std::nullopt);
  std::string fn = name() == "Softmax" ? "softmax" : name() == "LogSoftmax" ? "log_softmax" : "softmin";
  warn(str("Implicit dimension choice for ", fn, " has been deprecated. Change the call to include dim=X as an "
           "argument."));
  int64_t d = input.dim() == 0 || input.dim() == 1 || input.dim() == 3 ? 0 : 1;
  return fn_(input, d, std::nullopt);
}

std::string SoftmaxFamily::extra_repr() const { return dim ? str("dim=", *dim) : "dim=None"; }

Softmax::Softmax(std::optional<int64_t> dim) : SoftmaxFamily("Softmax", &F::softmax, dim) {}
LogSoftmax::LogSoftmax(std::optional<int64_t> dim) : SoftmaxFamily("LogSoftmax", &F::log_softmax, dim) {}
Softmin::Softmin(std::optional<int64_t> dim) : SoftmaxFamily("Softmin", &F::softmin, dim) {}

Tensor Softmax2d::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, ValueError, "Softmax2d: expected input to be 3D or 4D, got ",
              input.dim(), "D instead");
  return F::softmax(input, -3);
}

Tensor Softplus::forward(const Tensor& input) { return F::softplus(input, beta, threshold); }

std::string Softplus::extra_repr() const { return str("beta=", repr_float(beta), ", threshold=", repr_float(threshold)); }

Softshrink::Softshrink(double lambd) : Shrink("Softshrink", &F::softshrink, lambd) {}
Hardshrink::Hardshrink(double lambd) : Shrink("Hardshrink", &F::hardshrink, lambd) {}

Tensor Threshold::forward(const Tensor& input) { return F::threshold(input, threshold, value, inplace); }

std::string Threshold::extra_repr() const {
  return str("threshold=", repr_float(threshold), ", value=", repr_float(value), inplace_suffix(inplace));
}

Tensor GLU::forward(const Tensor& input) { return F::glu(input, dim); }

}  // namespace ember::nn

// The activations of ember::nn::functional: the parameterised ones run kernels::activation (one pass) and record
// torch's node; the rest reuse unary_ops.def rows and composites, as torch's functional forms do.
#include "../core/autocast_policy.h"
#include "ember/nn/activation.h"

#include <cmath>
#include <limits>

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "../functors/compute.h"
#include "ember/creation.h"
#include "ember/host.h"
#include "ember/ops.h"
#include "ember/random.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"

namespace ember::nn::functional {

namespace {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717, kSeluScale = 1.0507009873554804934193349852946;

// One parameterised activation: its kernel op and numbers, torch's kernel name (for dtype errors) and its nodes
// (out of place saves the input; in place saves the result where torch's Backward1 does).
struct Act {
  Activation op;
  ActivationParams p;
  const char* kernel;
  const char* node;
  const char* node_in_place;
  bool in_place_from_result;
  bool integers = false;    // hardtanh and threshold take integer dtypes too
  bool contiguous = false;  // a fresh result is contiguous whatever the input's layout (log_sigmoid, rrelu)
};

void check_dtype(const Act& a, const Tensor& x) {
  ScalarType t = x.dtype();
  bool float8 = is_float8(t);
  bool ok = (x.is_floating_point() && !float8) || (a.integers && !x.is_floating_point() && t != kBool);
  EMBER_CHECK(ok, NotImplementedError, "\"", a.kernel, "\" not implemented for '", legacy_name(t), "'");
}

Tensor run_kernel(const Act& a, const Tensor& out, const Tensor& x) {
  const Tensor inputs[1] = {x};
  ElementwiseConfig config;
  config.contiguous_output = a.contiguous;
  TensorIterator it(out, inputs, config);
  kernels::activation[it.device_type()](a.op, it, a.p);
  return it.finish();
}

Tensor forward(const Act& a, const Tensor& x) {
  check_dtype(a, x);
  Tensor r = run_kernel(a, {}, x);
  if (autograd::needs_grad({&x})) autograd::record_activation(a.node, a.op, a.p, r, x, false);
  return r;
}

Tensor forward_(const Act& a, const Tensor& input) {
  Tensor self = input;
  if (autograd::needs_grad({&self}) || autograd::writes_into_graph_view(self)) {
    autograd::record_in_place(self, [&] {
      check_dtype(a, self);
      Tensor r = run_kernel(a, {}, self);
      autograd::record_activation(a.node_in_place, a.op, a.p, r, self, a.in_place_from_result);
      return r;
    });
    return self;
  }
  check_dtype(a, self);
  run_kernel(a, self, self);
  return self;
}

Tensor apply(const Act& a, const Tensor& x, bool inplace) { return inplace ? forward_(a, x) : forward(a, x); }

Act leaky(double slope) {
  return {Activation::LeakyRelu, {slope}, "leaky_relu_cpu", "LeakyReluBackward0", "LeakyReluBackward1", true};
}
Act elu_act(double alpha, double scale, double input_scale, bool celu) {
  return {Activation::Elu, {alpha, scale, input_scale}, "elu_cpu", celu ? "CeluBackward0" : "EluBackward0",
          celu ? "CeluBackward1" : "EluBackward1", true};
}
Act celu_act(double alpha) {
  EMBER_CHECK(alpha != 0, Error, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return elu_act(alpha, 1.0, 1.0 / alpha, true);
}
Act hardtanh_act(const Tensor& x, double min_val, double max_val) {
  EMBER_CHECK(min_val <= max_val, ValueError, "min_val cannot be greater than max_val");
  EMBER_CHECK(x.dtype() != kBool, Error, "Bool inputs not supported for hardtanh");
  if (!x.is_floating_point()) {  // integer bounds truncate to int64, as torch's toLong
    min_val = std::trunc(min_val);
    max_val = std::trunc(max_val);
  }
  EMBER_CHECK(x.dtype() != kUInt8 || (min_val >= 0 && max_val >= 0), Error,
              "cannot do hardtanh on an unsigned type with negative limits");
  return {Activation::Hardtanh, {min_val, max_val}, "hardtanh_cpu", "HardtanhBackward0", "HardtanhBackward0", true,
          true};
}
Act threshold_act(const Tensor& x, double threshold, double value) {
  visit_dtype(x.dtype(), [&]<typename T>(T) {  // torch's checked conversion of both numbers to the dtype
    if constexpr (!std::is_same_v<T, bool> && !functors::is_float8<T>) {
      Scalar(threshold).to<T>();
      Scalar(value).to<T>();
    }
  });
  return {Activation::Threshold, {threshold, value}, "threshold_cpu", "ThresholdBackward0", "ThresholdBackward1", false,
          true};
}
const Act kHardswish{Activation::Hardswish, {}, "hardswish_cpu", "HardswishBackward0", "HardswishBackward0", false};
const Act kHardsigmoid{Activation::Hardsigmoid, {}, "hardsigmoid_cpu", "HardsigmoidBackward0", "HardsigmoidBackward0",
                       false};
const Act kMish{Activation::Mish, {}, "mish_cpu", "MishBackward0", "MishBackward0", false};
const Act kLogSigmoid{Activation::LogSigmoid, {}, "log_sigmoid_cpu", "LogSigmoidBackward0", nullptr, false, false, true};

// torch's check of a shrink's lambd: within [0, the dtype's max].
void check_lambd(const Tensor& x, double lambd) {
  if (!x.is_floating_point()) return;
  double hi = x.dtype() == kFloat64 ? std::numeric_limits<double>::max()
              : x.dtype() == kFloat16 ? 65504.0 : double(std::numeric_limits<float>::max());
  if (x.dtype() == kBFloat16) hi = 3.3895313892515355e+38;
  EMBER_CHECK(lambd >= 0 && lambd <= hi, Error, "lambda must be in range [0, ", hi, "] for input dtype ",
              legacy_name(x.dtype()), ", but found ", lambd);
}

// rrelu in training: each element <= 0 is scaled by a uniform sample in [lower, upper) from torch's stream (one
// 64-bit draw per such element, in order); the noise (1 elsewhere) is what the gradient multiplies by.
Tensor rrelu_noise(const Tensor& x, double lower, double upper) {
  EMBER_CHECK(x.dtype() == kFloat32 || x.dtype() == kFloat64 || x.dtype() == kBFloat16, NotImplementedError,
              "\"rrelu_with_noise_out_cpu\" not implemented for '", legacy_name(x.dtype()), "'");
  Tensor xc = host_copy(x).contiguous().to(kFloat64);  // drawn on the host, from the CPU generator's stream
  Tensor noise = empty(x.sizes(), TensorOptions(kFloat64).device(kCPU));
  const double* in = xc.data_ptr<double>();
  double* out = noise.data_ptr<double>();
  GeneratorState& g = default_generator().state();
  std::lock_guard<std::mutex> lock(g.mutex);
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (!(in[i] <= 0)) {
      out[i] = 1;
      continue;
    }
    uint64_t hi = g.engine(), lo = g.engine();
    double u = double(((hi << 32) | lo) & ((uint64_t(1) << 53) - 1)) * 0x1p-53;
    out[i] = u * (upper - lower) + lower;
  }
  return noise.to(x.options());
}

Tensor rrelu_impl(const Tensor& input, double lower, double upper, bool training, bool inplace) {
  EMBER_CHECK(lower <= upper, Error, "Lower bound should be less than or equal to the upper bound");
  if (!training) {
    Act a = leaky((lower + upper) / 2);
    a.node = "RreluWithNoiseBackward0";
    a.node_in_place = "RreluWithNoiseBackward1";
    a.contiguous = true;
    return apply(a, input, inplace);
  }
  Tensor noise = rrelu_noise(input, lower, upper);
  if (!inplace) {
    Tensor r = autograd::untracked([&] { return mul(input.contiguous(), noise); });
    if (autograd::needs_grad({&input})) autograd::record_rrelu_noise("RreluWithNoiseBackward0", r, input, noise);
    return r;
  }
  Tensor self = input;
  if (autograd::needs_grad({&self}) || autograd::writes_into_graph_view(self)) {
    autograd::record_in_place(self, [&] {
      Tensor r = autograd::untracked([&] { return mul(self, noise); });
      autograd::record_rrelu_noise("RreluWithNoiseBackward1", r, self, noise);
      return r;
    });
    return self;
  }
  mul_out(self, self, noise);
  return self;
}

}  // namespace

Tensor relu(const Tensor& input, bool inplace) { return inplace ? relu_(input) : ember::relu(input); }
Tensor relu_(const Tensor& input) {
  Tensor self = input;
  return ember::relu_(self);
}
Tensor relu6(const Tensor& input, bool inplace) { return hardtanh(input, 0.0, 6.0, inplace); }
Tensor leaky_relu(const Tensor& input, double negative_slope, bool inplace) {
  return apply(leaky(negative_slope), input, inplace);
}
Tensor leaky_relu_(const Tensor& input, double negative_slope) { return forward_(leaky(negative_slope), input); }
Tensor elu(const Tensor& input, double alpha, bool inplace) {
  return apply(elu_act(alpha, 1.0, 1.0, false), input, inplace);
}
Tensor elu_(const Tensor& input, double alpha) { return elu(input, alpha, true); }
Tensor selu(const Tensor& input, bool inplace) {
  return apply(elu_act(kSeluAlpha, kSeluScale, 1.0, false), input, inplace);
}
Tensor selu_(const Tensor& input) { return selu(input, true); }
Tensor celu(const Tensor& input, double alpha, bool inplace) { return apply(celu_act(alpha), input, inplace); }
Tensor celu_(const Tensor& input, double alpha) { return celu(input, alpha, true); }
Tensor gelu(const Tensor& input, std::string_view approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh", Error, "approximate argument must be either none or tanh.");
  return ember::gelu(input, approximate == "tanh");
}
Tensor silu(const Tensor& input, bool inplace) {
  Tensor self = input;
  return inplace ? ember::silu_(self) : ember::silu(input);
}
Tensor mish(const Tensor& input, bool inplace) { return apply(kMish, input, inplace); }
Tensor sigmoid(const Tensor& input) { return ember::sigmoid(input); }
Tensor tanh(const Tensor& input) { return ember::tanh(input); }
Tensor softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return ember::softmax(input, dim, dtype);
}
Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return ember::log_softmax(input, dim, dtype);
}
Tensor softmin(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return ember::softmax(neg(input), dim, dtype);
}
Tensor softplus(const Tensor& input, double beta, double threshold) { return ember::softplus(input, beta, threshold); }
Tensor softsign(const Tensor& input) { return div(input, add(abs(input), wrapped_scalar(1))); }
Tensor hardtanh(const Tensor& input, double min_val, double max_val, bool inplace) {
  return apply(hardtanh_act(input, min_val, max_val), input, inplace);
}
Tensor hardtanh_(const Tensor& input, double min_val, double max_val) {
  return hardtanh(input, min_val, max_val, true);
}
Tensor hardswish(const Tensor& input, bool inplace) { return apply(kHardswish, input, inplace); }
Tensor hardsigmoid(const Tensor& input, bool inplace) { return apply(kHardsigmoid, input, inplace); }
Tensor threshold(const Tensor& input, double threshold, double value, bool inplace) {
  return apply(threshold_act(input, threshold, value), input, inplace);
}
Tensor threshold_(const Tensor& input, double threshold, double value) {
  return forward_(threshold_act(input, threshold, value), input);
}
Tensor glu(const Tensor& input, int64_t dim) {
  EMBER_CHECK(input.dim() > 0, Error, "glu does not support scalars because halving size must be even");
  int64_t d = wrap_dim(dim, input.dim());
  int64_t n = input.sizes()[size_t(d)];
  EMBER_CHECK(n % 2 == 0, Error, "Halving dimension must be even, but dimension ", d, " is size ", n);
  EMBER_CHECK(input.is_floating_point() && input.element_size() > 1, NotImplementedError,
              "\"glu_cpu\" not implemented for '", legacy_name(input.dtype()), "'");
  Tensor r = autograd::untracked([&] { return mul(input.narrow(d, 0, n / 2), ember::sigmoid(input.narrow(d, n / 2, n / 2))); });
  if (autograd::needs_grad({&input})) autograd::record_glu(r, input, d);
  return r;
}
Tensor prelu(const Tensor& input, const Tensor& weight) {
  EMBER_AUTOCAST(lower, kBoth, prelu, input, weight);
  EMBER_CHECK(weight.dim() <= 1, Error, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = ",
              weight.dim());
  int64_t channels = input.dim() >= 2 ? input.sizes()[1] : 1;
  EMBER_CHECK(weight.numel() == 1 || weight.numel() == channels, Error,
              "Mismatch of parameter numbers and input channel size. Found parameter numbers = ", weight.numel(),
              " and channel size = ", channels, ".");
  EMBER_CHECK(input.is_floating_point() && input.element_size() > 1, NotImplementedError,
              "\"prelu_cpu\" not implemented for '", legacy_name(input.dtype()), "'");
  // The weight broadcast along dim 1 (a view, as torch's reshape records).
  DimVector shape;
  if (input.dim() >= 2) {
    shape.push_back(weight.numel());
    for (int64_t i = 2; i < input.dim(); ++i) shape.push_back(1);
  }
  Tensor w = weight.reshape(shape);
  Tensor r = autograd::untracked([&] { return where(gt(input, wrapped_scalar(0)), input, mul(w, input)); });
  if (autograd::needs_grad({&input, &w})) autograd::record_prelu(r, input, w);
  return r;
}
Tensor rrelu(const Tensor& input, double lower, double upper, bool training, bool inplace) {
  return rrelu_impl(input, lower, upper, training, inplace);
}
Tensor rrelu_(const Tensor& input, double lower, double upper, bool training) {
  return rrelu_impl(input, lower, upper, training, true);
}
Tensor logsigmoid(const Tensor& input) { return forward(kLogSigmoid, input); }
Tensor tanhshrink(const Tensor& input) { return sub(input, ember::tanh(input)); }
Tensor softshrink(const Tensor& input, double lambd) {
  check_lambd(input, lambd);
  return forward({Activation::Softshrink, {lambd}, "softshrink_check", "SoftshrinkBackward0", nullptr, false}, input);
}
Tensor hardshrink(const Tensor& input, double lambd) {
  return forward({Activation::Hardshrink, {lambd}, "hardshrink_cpu", "HardshrinkBackward0", nullptr, false}, input);
}

}  // namespace ember::nn::functional

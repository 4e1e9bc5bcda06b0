// Normalisation layers: batch/instance/layer/group norm through the norm_* kernels (statistics in one pass per
// channel or row, the affine map in another), rms_norm and local_response_norm composed of basic ops.
#include "../core/autocast_policy.h"
#include "ember/nn/normalization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"

namespace ember::nn::functional {

namespace {

const Tensor& value_or_undefined(const OptionalTensor& t) {
  static const Tensor undefined;
  return t ? *t : undefined;
}

// float64 inputs compute in double, the others (float32, float16, bfloat16) in float.
ScalarType norm_compute_dtype(const Tensor& x) { return x.dtype() == kFloat64 ? kFloat64 : kFloat32; }

void check_norm_dtype(const Tensor& x, const char* kernel) {
  EMBER_CHECK(x.is_floating_point(), NotImplementedError, "\"", kernel, "\" not implemented for '",
              legacy_name(x.dtype()), "'");
}

// torch's CPU rule: parameters share the input's dtype, or are float32 beside a float16/bfloat16 input.
void check_mixed(const Tensor& x, std::initializer_list<const Tensor*> params) {
  bool reduced = x.dtype() == kFloat16 || x.dtype() == kBFloat16;
  for (const Tensor* p : params) {
    EMBER_CHECK(!p->defined() || p->dtype() == x.dtype() || (reduced && p->dtype() == kFloat32), Error,
                "mixed dtype (CPU): all inputs must share same datatype.");
  }
}

// x as a contiguous (n, c, s) tensor of its compute dtype.
Tensor as_3d(const Tensor& x, int64_t n, int64_t c, int64_t s) {
  return x.to(norm_compute_dtype(x)).contiguous().view({n, c, s});
}

// A per-channel (or per-position) parameter as a contiguous 1-D tensor of dtype ct (undefined stays undefined).
Tensor param(const Tensor& p, ScalarType ct) { return p.defined() ? p.to(ct).contiguous().view({-1}) : p; }

// y (input's shape) in input's layout: channels-last stays channels-last, as torch (batch_norm's `dense_cl`: also an
// input that is channels-last contiguous only when its size-1 dims are skipped); contiguous otherwise.
Tensor in_input_layout(const Tensor& y, const Tensor& input, bool dense_cl = false) {
  bool cl = is_channels_last_like(input.sizes(), input.strides()) ||
            (dense_cl && is_channels_last_contiguous(input.sizes(), input.strides()));
  if (input.dim() < 4 || input.is_contiguous() || !cl) return y;
  Tensor out = empty_strided(input.sizes(), channels_last_strides(input.sizes()), y.options());
  out.copy_(y);
  return out;
}

// y3 viewed in input's shape and dtype, as a tensor of its own, not a view of y3 (torch's normalisations return
// fresh tensors, so an in-place op on one records its own node).
Tensor reshaped_result(Tensor y3, const Tensor& input) {
  Tensor y = y3.view(input.sizes()).to(input.dtype());
  y3 = Tensor();
  autograd::drop_private_base(y);
  return y;
}

// y3 (input's shape when viewed) in input's dtype and layout.
Tensor like_input(Tensor y3, const Tensor& input, bool dense_cl = false) {
  return in_input_layout(reshaped_result(std::move(y3), input), input, dense_cl);
}

int64_t spatial_size(const Tensor& x) {
  int64_t s = 1;
  for (int64_t d = 2; d < x.dim(); ++d) s *= x.size(d);
  return s;
}

// 1 / sqrt(var + eps): from the double variance as torch (layer/group norm), else in var's dtype (batch_norm: the
// seed CNN's training trajectory against torch's is tuned to that rounding).
Tensor inverse_std(const Tensor& var, double eps, bool batch_stats) {
  Tensor v = batch_stats ? var.to(kFloat64) : var;
  return reciprocal(sqrt(v + Scalar(eps))).to(var.dtype());
}

// bias - mean * scale rounded once (torch's fused multiply-add, group_norm), in scale's dtype; undefined bias: 0.
Tensor fused_shift(const Tensor& bias, const Tensor& mean, const Tensor& scale) {
  Tensor p = mul(mean.to(kFloat64), scale.to(kFloat64));
  return (bias.defined() ? sub(bias.to(kFloat64), p) : neg(p)).to(scale.dtype());
}

void check_channels(const char* what, const Tensor& t, int64_t c) {
  EMBER_CHECK(!t.defined() || t.numel() == c, Error, what, " should contain ", c, " elements not ", t.numel());
}

// running = (1 - momentum) * running + momentum * stat, in double as torch, written in place.
void update_running(const Tensor& running, const Tensor& stat, double momentum) {
  if (!running.defined()) return;
  autograd::NoGradGuard no_grad;
  Tensor target = running;
  target.copy_(add(mul(stat.to(kFloat64), wrapped_scalar(momentum)),
                   mul(running.to(kFloat64), wrapped_scalar(1 - momentum))).view(running.sizes()));
}

}  // namespace

Tensor batch_norm_impl(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                       const Tensor& running_var, bool training, double momentum, double eps) {
  int64_t c = input.size(wrap_dim(1, input.dim()));
  // torch's training path reduces a non-contiguous input with var_mean, which refuses other dtypes first.
  EMBER_CHECK(input.is_floating_point() || !training || input.numel() == 0 || input.is_contiguous() ||
              is_channels_last_contiguous(input.sizes(), input.strides()), Error, "mean(): could not infer output "
              "dtype. Input dtype must be either a floating point or complex dtype. Got: ",
              legacy_name(input.dtype()));
  if (input.numel() == 0) {  // torch: a clone, scaled by the first weight and bias
    Tensor out = input.clone();
    if (weight.defined()) out = mul(out, weight.reshape({-1})[0]);
    if (bias.defined()) out = add(out, bias.reshape({-1})[0]);
    return out;
  }
  if (running_mean.defined()) check_channels("running_mean", running_mean, c);
  EMBER_CHECK(training || running_mean.defined(), Error, "running_mean must be defined in evaluation mode");
  if (running_var.defined()) check_channels("running_var", running_var, c);
  EMBER_CHECK(training || running_var.defined(), Error, "running_var must be defined in evaluation mode");
  check_channels("weight", weight, c);
  check_channels("bias", bias, c);
  check_norm_dtype(input, "batch_norm");
  check_mixed(input, {&weight, &bias, &running_mean, &running_var});
  int64_t n = input.size(0), s = spatial_size(input);
  ScalarType ct = norm_compute_dtype(input);
  Tensor mean, invstd, y3;
  bool dense = false;
  autograd::untracked([&] {
    Tensor x3 = as_3d(input, n, c, s), constant;
    if (training) {
      mean = empty({c}, x3.options());
      Tensor var = empty({c}, x3.options());
      kernels::norm_stats[x3.device()](x3, mean, var);
      // a constant channel (exact mean, var 0) takes torch's invstd from the double variance and its fused shift
      // below, so the fused map's rounding noise where the result is b is torch's too
      constant = eq(var, wrapped_scalar(0.0));
      invstd = where(constant, inverse_std(var, eps, true), inverse_std(var, eps, false));
      double count = double(n * s);
      update_running(running_mean, mean, momentum);
      update_running(running_var, mul(var.to(kFloat64), wrapped_scalar(count / (count - 1))), momentum);
    } else {
      mean = running_mean.to(ct).view({c});
      invstd = inverse_std(running_var.to(ct).view({c}), eps, false);
    }
    // torch: x * scale + (b - mean * scale) over a contiguous or channels-last input with contiguous parameters,
    // (x - mean) * scale + b over others (a constant channel gives exactly b there).
    Tensor scale = weight.defined() ? mul(param(weight, ct), invstd) : invstd, b = param(bias, ct);
    dense = std::ranges::all_of(std::initializer_list<const Tensor*>{&weight, &bias, &running_mean, &running_var},
                                [](const Tensor* t) { return !t->defined() || t->is_contiguous(); }) &&
            (input.is_contiguous() || is_channels_last_contiguous(input.sizes(), input.strides()));
    y3 = empty_like(x3);
    Tensor shift = b.defined() ? sub(b, mul(mean, scale)) : neg(mul(mean, scale));
    if (constant.defined()) shift = where(constant, fused_shift(b, mean, scale), shift);
    kernels::norm_affine[x3.device()](x3, dense ? Tensor() : mean, scale, dense ? shift : b, Tensor(), Tensor(), y3);
  });
  Tensor y = like_input(std::move(y3), input, dense);
  if (autograd::needs_grad({&input, &weight, &bias})) {
    autograd::record_batch_norm(y, input, weight, bias, mean, invstd, training, eps);
  }
  return y;
}

Tensor batch_norm(const Tensor& input, const OptionalTensor& running_mean, const OptionalTensor& running_var,
                  const OptionalTensor& weight, const OptionalTensor& bias, bool training, double momentum, double eps) {
  if (training && input.dim() >= 2) {
    EMBER_CHECK(input.numel() != input.size(1), ValueError,
                "Expected more than 1 value per channel when training, got input size torch.Size(", input.sizes(), ")");
  }
  return batch_norm_impl(input, value_or_undefined(weight), value_or_undefined(bias), value_or_undefined(running_mean),
                         value_or_undefined(running_var), training, momentum, eps);
}

Tensor instance_norm(const Tensor& input, const OptionalTensor& running_mean, const OptionalTensor& running_var,
                     const OptionalTensor& weight, const OptionalTensor& bias, bool use_input_stats, double momentum,
                     double eps) {
  if (use_input_stats) {
    EMBER_CHECK(input.dim() < 2 || spatial_size(input) != 1, ValueError,
                "Expected more than 1 spatial element when training, got input size torch.Size(", input.sizes(), ")");
  }
  return ember::instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps);
}

}  // namespace ember::nn::functional

namespace ember {

Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                     const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                     bool use_input_stats, double momentum, double eps, bool) {
  using nn::functional::batch_norm_impl;
  EMBER_CHECK(use_input_stats || (running_mean && running_var), Error,
              "Expected running_mean and running_var to be defined when use_input_stats is false");
  // torch's at::instance_norm: batch_norm of (1, N * C, ...) with the parameters repeated N times.
  int64_t b = input.size(0), c = input.size(wrap_dim(1, input.dim()));
  auto repeated = [&](const std::optional<Tensor>& t) { return t ? t->repeat({b}) : Tensor(); };
  Tensor rm = repeated(running_mean), rv = repeated(running_var);
  DimVector shape(input.sizes());
  shape[0] = 1;
  shape[1] = b * c;
  Tensor out = batch_norm_impl(input.contiguous().view(shape), repeated(weight), repeated(bias), rm, rv,
                               use_input_stats, momentum, eps);
  autograd::untracked([&] {
    if (running_mean) Tensor(*running_mean).copy_(mean(rm.view({b, c}), {0}));
    if (running_var) Tensor(*running_var).copy_(mean(rv.view({b, c}), {0}));
  });
  return out.view(input.sizes());
}

}  // namespace ember

namespace ember::nn::functional {

namespace {

// torch's _check_layer_norm_inputs; returns the number of rows (the product of the leading dims).
int64_t check_normalized_shape(const Tensor& input, IntArrayRef shape, const Tensor& weight, const Tensor& bias,
                               bool leading_comma) {
  EMBER_CHECK(!shape.empty(), Error, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
              "least one element, but got normalized_shape = ", shape);
  EMBER_CHECK(!weight.defined() || std::ranges::equal(weight.sizes(), shape), Error, "Expected weight to be of same shape as "
              "normalized_shape, but got weight of shape ", weight.sizes(), " and normalized_shape = ", shape);
  EMBER_CHECK(!bias.defined() || std::ranges::equal(bias.sizes(), shape), Error, "Expected bias to be of same shape as "
              "normalized_shape, but got bias of shape ", bias.sizes(), " and normalized_shape = ", shape);
  int64_t lead = input.dim() - int64_t(shape.size());
  if (lead < 0 || !std::ranges::equal(IntArrayRef(input.sizes().data() + lead, shape.size()), shape)) {
    std::ostringstream ss;
    ss << "Given normalized_shape=" << shape << ", expected input with shape [*";
    for (size_t i = 0; i < shape.size(); ++i) ss << (i || leading_comma ? ", " : "") << shape[i];
    ss << "], but got input of size" << input.sizes();
    throw Error(ss.str());
  }
  int64_t rows = 1;
  for (int64_t d = 0; d < lead; ++d) rows *= input.size(d);
  return rows;
}

}  // namespace

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const OptionalTensor& weight_opt,
                  const OptionalTensor& bias_opt, double eps) {
  EMBER_AUTOCAST(fp32, kCUDA, layer_norm, input, normalized_shape, weight_opt, bias_opt, eps);
  const Tensor &weight = value_or_undefined(weight_opt), &bias = value_or_undefined(bias_opt);
  int64_t m = check_normalized_shape(input, normalized_shape, weight, bias, true);
  check_mixed(input, {&weight, &bias});
  check_norm_dtype(input, "LayerNormKernelImpl");
  int64_t n = 1;
  for (int64_t s : normalized_shape) n *= s;
  Tensor mean, rstd, y3;
  autograd::untracked([&] {
    ScalarType ct = norm_compute_dtype(input);
    Tensor x3 = as_3d(input, 1, m, n);
    mean = empty({m}, x3.options());
    Tensor var = empty({m}, x3.options());
    kernels::norm_stats[x3.device()](x3, mean, var);
    rstd = inverse_std(var, eps, true);
    y3 = empty_like(x3);
    kernels::norm_affine[x3.device()](x3, mean, rstd, Tensor(), param(weight, ct), param(bias, ct), y3);
  });
  Tensor y = reshaped_result(std::move(y3), input);  // contiguous, as torch's
  if (autograd::needs_grad({&input, &weight, &bias})) {
    autograd::record_layer_norm(y, input, int64_t(normalized_shape.size()), weight, bias, mean, rstd, eps);
  }
  return y;
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const OptionalTensor& weight_opt,
                  const OptionalTensor& bias_opt, double eps) {
  EMBER_AUTOCAST(fp32, kCUDA, ::ember::nn::functional::group_norm, input, num_groups, weight_opt, bias_opt, eps);
  EMBER_CHECK(input.dim() >= 2, Error, "Expected at least 2 dimensions for input tensor but received ", input.dim());
  EMBER_CHECK(num_groups != 0, ZeroDivisionError, "integer division or modulo by zero");  // Python's, in torch
  int64_t n = input.size(0), c = input.size(1), s = spatial_size(input);
  EMBER_CHECK((n * c / num_groups) * s != 1, ValueError, "Expected more than 1 value per channel when training, "
              "got input size [", n * c / num_groups, ", ", num_groups, [&] {
                std::ostringstream ss;
                for (int64_t d = 2; d < input.dim(); ++d) ss << ", " << input.size(d);
                return ss.str();
              }(), "]");
  return ember::group_norm(input, num_groups, weight_opt, bias_opt, eps);
}

}  // namespace ember::nn::functional

namespace ember {

Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight_opt,
                  const std::optional<Tensor>& bias_opt, double eps, bool) {
  using namespace nn::functional;
  EMBER_CHECK(input.dim() >= 2, Error, "Expected at least 2 dimensions for input tensor but received ", input.dim());
  int64_t n = input.size(0), c = input.size(1);
  const Tensor &weight = value_or_undefined(weight_opt), &bias = value_or_undefined(bias_opt);
  EMBER_CHECK(num_groups > 0, Error, "Expected num groups to be greater than 0, got ", num_groups);
  EMBER_CHECK(c % num_groups == 0, Error, "Expected number of channels in input to be divisible by num_groups, but "
              "got input of shape ", input.sizes(), " and num_groups=", num_groups);
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == c), Error, "Expected weight to be a vector "
              "of size equal to the number of channels in input, but got weight of shape ", weight.sizes(),
              " and input of shape ", input.sizes());
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.numel() == c), Error, "Expected bias to be a vector "
              "of size equal to the number of channels in input, but got bias of shape ", bias.sizes(),
              " and input of shape ", input.sizes());
  check_mixed(input, {&weight, &bias});
  check_norm_dtype(input, "GroupNormKernelImpl");
  int64_t g = num_groups, s = spatial_size(input);
  Tensor mean, rstd, y3;
  autograd::untracked([&] {
    ScalarType ct = norm_compute_dtype(input);
    Tensor x3 = as_3d(input, 1, n * g, (c / g) * s);
    mean = empty({n * g}, x3.options());
    Tensor var = empty({n * g}, x3.options());
    kernels::norm_stats[x3.device()](x3, mean, var);
    rstd = inverse_std(var, eps, true);
    // Per (sample, channel), as torch: with weight or bias, x * scale + shift (scale = rstd * w[c], shift =
    // b[c] - mean * scale); without, (x - mean) * rstd.
    auto per_channel = [&](const Tensor& t) { return t.expand({n, g, c / g}).contiguous().view({-1}); };
    Tensor r = rstd.view({n, g, 1}), mu = mean.view({n, g, 1});
    y3 = empty({1, n * c, s}, x3.options());
    if (weight.defined() || bias.defined()) {
      Tensor scale = weight.defined() ? mul(r, param(weight, ct).view({1, g, c / g})) : r;
      Tensor b = bias.defined() ? param(bias, ct).view({1, g, c / g}) : Tensor();
      kernels::norm_affine[x3.device()](x3.view({1, n * c, s}), Tensor(), per_channel(scale),
                                        per_channel(fused_shift(b, mu, scale)), Tensor(), Tensor(), y3);
    } else {
      kernels::norm_affine[x3.device()](x3.view({1, n * c, s}), per_channel(mu), per_channel(r), Tensor(), Tensor(),
                                        Tensor(), y3);
    }
  });
  Tensor y = like_input(std::move(y3), input);
  if (autograd::needs_grad({&input, &weight, &bias})) {
    autograd::record_group_norm(y, input, g, weight, bias, mean, rstd, eps);
  }
  return y;
}

}  // namespace ember

namespace ember::nn::functional {

Tensor rms_norm(const Tensor& input, IntArrayRef normalized_shape, const OptionalTensor& weight_opt,
                std::optional<double> eps) {
  const Tensor& weight = value_or_undefined(weight_opt);
  check_normalized_shape(input, normalized_shape, weight, Tensor(), false);
  check_norm_dtype(input, "rms_norm");
  // torch's composite: computed in float for float16/bfloat16, eps rounded to the input's dtype.
  ScalarType ct = norm_compute_dtype(input);
  double e = eps ? *eps : ct == kFloat64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
  e = empty({}, input.options()).fill_(Scalar(e)).item<double>();
  DimVector dims;
  for (size_t i = 0; i < normalized_shape.size(); ++i) dims.push_back(input.dim() - 1 - int64_t(i));
  Tensor x = input.to(ct);
  Tensor r = rsqrt(add(mean(pow(x, wrapped_scalar(2)), dims, true), wrapped_scalar(e)));
  // The weight multiplies before the one rounding to the input's dtype, which the result keeps whatever the weight's.
  Tensor result = mul(x, r);
  if (weight.defined()) result = mul(result, weight);
  // torch's result is contiguous, or channels-last for such an input.
  return in_input_layout(result.to(input.dtype()).contiguous(), input);
}

Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta, double k) {
  EMBER_CHECK(input.dim() >= 3, ValueError, "Expected 3D or higher dimensionality                          input (got ", input.dim(),
              " dimensions)");
  if (input.numel() == 0) return input;
  // torch averages through avg_pool2d (3-D inputs; float types) or avg_pool3d (float32/64), both also int64 (floored).
  bool integral = input.dtype() == kInt64, wide = input.dtype() == kFloat32 || input.dtype() == kFloat64 || integral;
  if (input.dim() == 3 && !integral) check_norm_dtype(input, "avg_pool2d");
  EMBER_CHECK(input.dim() == 3 || wide, NotImplementedError, "\"avg_pool3d_out_frame\" not implemented for '",
              legacy_name(input.dtype()), "'");
  // The mean of squares over a window of `size` channels, zero-padded by size / 2 before, (size - 1) / 2 after.
  int64_t c = input.size(1);
  auto zeros_of = [&](int64_t channels) {
    DimVector shape(input.sizes());
    shape[1] = channels;
    return zeros(shape, input.options());
  };
  Tensor sq = mul(input, input);
  Tensor parts[] = {zeros_of(size / 2), sq, zeros_of((size - 1) / 2)};
  Tensor padded = cat(parts, 1), window = padded.narrow(1, 0, c);
  for (int64_t j = 1; j < size; ++j) window = add(window, padded.narrow(1, j, c));
  Tensor div_ = integral ? div(window, wrapped_scalar(size), "floor") : div(window, wrapped_scalar(double(size)));
  Tensor denom = pow(add(mul(div_, wrapped_scalar(alpha)), wrapped_scalar(k)), wrapped_scalar(beta));
  return div(input, denom);
}

}  // namespace ember::nn::functional

namespace ember {

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool) {
  auto v = [](const std::optional<Tensor>& t) { return t ? *t : Tensor(); };
  return nn::functional::batch_norm_impl(input, v(weight), v(bias), v(running_mean), v(running_var), training,
                                         momentum, eps);
}

}  // namespace ember

// The normalisation and dropout modules: parameters, running statistics, torch's input checks and reprs; the work
// is in the functional forms.
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/nn/dropout.h"
#include "ember/nn/init.h"
#include "ember/nn/modules_norm.h"
#include "ember/nn/normalization.h"

namespace ember::nn {

namespace F = functional;

namespace {

const char* py_bool(bool b) { return b ? "True" : "False"; }

}  // namespace

NormBase::NormBase(std::string name, int64_t dims, bool instance, int64_t num_features, double eps,
                   std::optional<double> momentum, bool affine, bool track_running_stats,
                   const LayerOptions& options, bool bias)
    : Module(std::move(name)),
      dims(dims),
      num_features(num_features),
      instance(instance),
      eps(eps),
      momentum(momentum),
      affine(affine),
      track_running_stats(track_running_stats),
      weight(register_parameter("weight", affine ? empty({num_features}, options.tensor_options()) : Tensor())),
      bias(register_parameter("bias", affine && bias ? empty({num_features}, options.tensor_options()) : Tensor())),
      running_mean(register_buffer("running_mean", track_running_stats ? zeros({num_features}, options.tensor_options()) : Tensor())),
      running_var(register_buffer("running_var", track_running_stats ? ones({num_features}, options.tensor_options()) : Tensor())),
      num_batches_tracked(register_buffer(
          "num_batches_tracked",
          track_running_stats ? zeros({}, TensorOptions(kInt64).device(options.device)) : Tensor())) {
  reset_parameters();
}

void NormBase::reset_running_stats() {
  if (!track_running_stats) return;
  autograd::NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

void NormBase::reset_parameters() {
  reset_running_stats();
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

Tensor NormBase::forward(const Tensor& input) {
  // BatchNorm1d takes (N, C) or (N, C, L), 2d/3d exactly 4 / 5 dims; InstanceNorm a batched or unbatched input.
  int64_t hi = dims + 2, lo = instance || dims == 1 ? dims + 1 : hi;
  if (lo == hi) EMBER_CHECK(input.dim() == hi, ValueError, "expected ", hi, "D input (got ", input.dim(), "D input)");
  else EMBER_CHECK(input.dim() == lo || input.dim() == hi, ValueError, "expected ", lo, "D or ", hi, "D input (got ",
                   input.dim(), "D input)");
  return instance ? instance_norm(input) : batch_norm(input);
}

Tensor NormBase::batch_norm(const Tensor& input) {
  double factor = momentum.value_or(0.0);
  if (is_training() && track_running_stats && num_batches_tracked.defined()) {
    autograd::NoGradGuard no_grad;
    num_batches_tracked.add_(1);
    if (!momentum) factor = 1.0 / double(num_batches_tracked.item<int64_t>());  // a cumulative average
  }
  bool use_batch_stats = is_training() || (!running_mean.defined() && !running_var.defined());
  bool pass_stats = !is_training() || track_running_stats;
  return F::batch_norm(input, pass_stats ? optional_tensor(running_mean) : std::nullopt,
                       pass_stats ? optional_tensor(running_var) : std::nullopt, optional_tensor(weight),
                       optional_tensor(bias), use_batch_stats, factor,
                       eps);
}

Tensor NormBase::instance_norm(const Tensor& input) {
  int64_t feature_dim = input.dim() - dims - 1;
  EMBER_CHECK(!affine || input.size(feature_dim) == num_features, ValueError, "expected input's size at dim=",
              feature_dim, " to match num_features (", num_features, "), but got: ", input.size(feature_dim), ".");
  bool unbatched = input.dim() == dims + 1;
  Tensor x = unbatched ? input.unsqueeze(0) : input;
  Tensor y = F::instance_norm(x, optional_tensor(running_mean), optional_tensor(running_var), optional_tensor(weight),
                              optional_tensor(bias), is_training() || !track_running_stats, momentum.value_or(0.0),
                              eps);
  return unbatched ? y.squeeze(0) : y;
}

std::string NormBase::extra_repr() const {
  return str(num_features, ", eps=", repr_float(eps), ", momentum=", momentum ? repr_float(*momentum) : "None",
             ", affine=", py_bool(affine), ", bias=", py_bool(bias.defined()), ", track_running_stats=",
             py_bool(track_running_stats));
}

LayerNorm::LayerNorm(IntArrayRef normalized_shape, double eps, bool elementwise_affine, bool bias,
                     const LayerOptions& options)
    : Module("LayerNorm"),
      normalized_shape(normalized_shape),
      eps(eps),
      elementwise_affine(elementwise_affine),
      weight(register_parameter("weight", elementwise_affine ? empty(normalized_shape, options.tensor_options()) : Tensor())),
      bias(register_parameter("bias", elementwise_affine && bias ? empty(normalized_shape, options.tensor_options())
                                                                 : Tensor())) {
  reset_parameters();
}

void LayerNorm::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

Tensor LayerNorm::forward(const Tensor& input) {
  return F::layer_norm(input, normalized_shape, optional_tensor(weight), optional_tensor(bias), eps);
}

std::string LayerNorm::extra_repr() const {
  return str(repr_tuple(normalized_shape), ", eps=", repr_float(eps), ", elementwise_affine=",
             py_bool(elementwise_affine), ", bias=", py_bool(bias.defined()));
}

GroupNorm::GroupNorm(int64_t num_groups, int64_t num_channels, double eps, bool affine, const LayerOptions& options,
                     bool bias)
    : Module("GroupNorm"),
      num_groups(num_groups),
      num_channels(num_channels),
      eps(eps),
      affine(affine),
      weight(register_parameter("weight", affine ? empty({num_channels}, options.tensor_options()) : Tensor())),
      bias(register_parameter("bias", affine && bias ? empty({num_channels}, options.tensor_options()) : Tensor())) {
  EMBER_CHECK(num_groups != 0 && num_channels % num_groups == 0, ValueError, "num_channels (", num_channels,
              ") must be divisible by num_groups (", num_groups, ")");
  reset_parameters();
}

void GroupNorm::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

Tensor GroupNorm::forward(const Tensor& input) {
  return F::group_norm(input, num_groups, optional_tensor(weight), optional_tensor(bias), eps);
}

std::string GroupNorm::extra_repr() const {
  return str(num_groups, ", ", num_channels, ", eps=", repr_float(eps), ", affine=", py_bool(affine), ", bias=",
             py_bool(bias.defined()));
}

RMSNorm::RMSNorm(IntArrayRef normalized_shape, std::optional<double> eps, bool elementwise_affine,
                 const LayerOptions& options)
    : Module("RMSNorm"),
      normalized_shape(normalized_shape),
      eps(eps),
      elementwise_affine(elementwise_affine),
      weight(register_parameter("weight", elementwise_affine ? empty(normalized_shape, options.tensor_options())
                                                             : Tensor())) {
  reset_parameters();
}

void RMSNorm::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
}

Tensor RMSNorm::forward(const Tensor& input) { return F::rms_norm(input, normalized_shape, optional_tensor(weight),
                        eps); }

std::string RMSNorm::extra_repr() const {
  return str(repr_tuple(normalized_shape), ", eps=", eps ? repr_float(*eps) : "None", ", elementwise_affine=",
             py_bool(elementwise_affine));
}

Tensor LocalResponseNorm::forward(const Tensor& input) { return F::local_response_norm(input, size, alpha, beta, k); }

std::string LocalResponseNorm::extra_repr() const {
  return str(size, ", alpha=", repr_float(alpha), ", beta=", repr_float(beta), ", k=", repr_float(k));
}

DropoutBase::DropoutBase(std::string name, Fn fn, double p, bool inplace)
    : Module(std::move(name)), p(p), inplace(inplace), fn_(fn) {
  EMBER_CHECK(p >= 0 && p <= 1, ValueError, "dropout probability has to be between 0 and 1, but got ", repr_float(p));
}

std::string DropoutBase::extra_repr() const { return str("p=", repr_float(p), ", inplace=", py_bool(inplace)); }

Dropout::Dropout(double p, bool inplace) : DropoutBase("Dropout", &F::dropout, p, inplace) {}
Dropout1d::Dropout1d(double p, bool inplace) : DropoutBase("Dropout1d", &F::dropout1d, p, inplace) {}
Dropout2d::Dropout2d(double p, bool inplace) : DropoutBase("Dropout2d", &F::dropout2d, p, inplace) {}
Dropout3d::Dropout3d(double p, bool inplace) : DropoutBase("Dropout3d", &F::dropout3d, p, inplace) {}
AlphaDropout::AlphaDropout(double p, bool inplace) : DropoutBase("AlphaDropout", &F::alpha_dropout, p, inplace) {}
FeatureAlphaDropout::FeatureAlphaDropout(double p, bool inplace)
    : DropoutBase("FeatureAlphaDropout", &F::feature_alpha_dropout, p, inplace) {}

}  // namespace ember::nn

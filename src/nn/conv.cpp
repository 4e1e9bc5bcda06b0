// Conv*d, ConvTranspose*d and the pooling modules: argument checks, torch's default init and reprs; the work is in
// the functional forms.
#include <algorithm>
#include <cmath>

#include "ember/creation.h"
#include "ember/nn/activation.h"
#include "ember/nn/conv.h"
#include "ember/nn/init.h"
#include "ember/nn/modules_conv.h"
#include "ember/nn/padding.h"
#include "ember/nn/pooling.h"

namespace ember::nn {

namespace F = functional;

namespace {

// The spatial dims of an input, after the channel dim and the batch dim if there is one.
DimVector spatial_sizes(const Tensor& input, int64_t dims) {
  DimVector s;
  for (int64_t d = input.dim() - dims; d < input.dim(); ++d) s.push_back(input.size(d));
  return s;
}

DimVector weight_shape(bool transposed, int64_t in, int64_t out, int64_t groups, IntArrayRef kernel) {
  DimVector shape = transposed ? DimVector{in, out / groups} : DimVector{out, in / groups};
  for (int64_t k : kernel) shape.push_back(k);
  return shape;
}

}  // namespace

ConvNd::ConvNd(std::string name, int64_t dims, bool transposed, int64_t in_channels, int64_t out_channels,
               const SizeArg& kernel_size, const SizeArg& stride, const ConvPadding& padding, const SizeArg& dilation,
               const SizeArg& output_padding, int64_t groups, bool bias, std::string padding_mode,
               const LayerOptions& options)
    : Module(std::move(name)),
      dims(dims),
      in_channels(in_channels),
      out_channels(out_channels),
      groups(groups),
      transposed(transposed),
      kernel_size(kernel_size.expand(dims)),
      stride(stride.expand(dims)),
      padding(padding.text.empty() ? padding.expand(dims) : DimVector(size_t(dims), 0)),
      dilation(dilation.expand(dims)),
      output_padding(output_padding.expand(dims)),
      padding_string(padding.text),
      padding_mode(std::move(padding_mode)),
      weight(register_parameter("weight", Tensor())),
      bias(register_parameter("bias", Tensor())) {
  EMBER_CHECK(groups > 0, ValueError, "groups must be a positive integer");
  EMBER_CHECK(in_channels % groups == 0, ValueError, "in_channels must be divisible by groups");
  EMBER_CHECK(out_channels % groups == 0, ValueError, "out_channels must be divisible by groups");
  if (!padding_string.empty()) {
    EMBER_CHECK(padding_string == "same" || padding_string == "valid", ValueError, "Invalid padding string '",
                padding_string, "', should be one of {'valid', 'same'}");
    EMBER_CHECK(padding_string != "same" || std::all_of(this->stride.begin(), this->stride.end(),
                                                        [](int64_t s) { return s == 1; }),
                ValueError, "padding='same' is not supported for strided convolutions");
  }
  const std::string& mode = this->padding_mode;
  EMBER_CHECK(mode == "zeros" || mode == "reflect" || mode == "replicate" || mode == "circular", ValueError,
              "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got padding_mode='",
              mode, "'");
  EMBER_CHECK(!transposed || mode == "zeros", ValueError, "Only \"zeros\" padding mode is supported for ", name_);
  TensorOptions o = options.tensor_options();
  register_parameter("weight", empty(weight_shape(transposed, in_channels, out_channels, groups, this->kernel_size), o));
  if (bias) register_parameter("bias", empty({out_channels}, o));
  reset_parameters();
}

void ConvNd::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    double bound = fan_in > 0 ? 1 / std::sqrt(double(fan_in)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

DimVector ConvNd::reversed_padding_twice() const {
  DimVector out;
  for (int64_t d = dims - 1; d >= 0; --d) {
    int64_t left = padding[size_t(d)], right = left;
    if (padding_string == "same") {  // the total d * (k - 1), the extra one on the right
      int64_t total = dilation[size_t(d)] * (kernel_size[size_t(d)] - 1);
      left = total / 2;
      right = total - left;
    }
    out.push_back(left);
    out.push_back(right);
  }
  return out;
}

Tensor ConvNd::conv(const Tensor& input, IntArrayRef pad, IntArrayRef out_pad) const {
  auto b = optional_tensor(bias);
  if (transposed) {
    switch (dims) {
      case 1: return F::conv_transpose1d(input, weight, b, stride, pad, out_pad, groups, dilation);
      case 2: return F::conv_transpose2d(input, weight, b, stride, pad, out_pad, groups, dilation);
      default: return F::conv_transpose3d(input, weight, b, stride, pad, out_pad, groups, dilation);
    }
  }
  if (!padding_string.empty() && padding_mode == "zeros") {
    switch (dims) {
      case 1: return F::conv1d(input, weight, b, stride, padding_string, dilation, groups);
      case 2: return F::conv2d(input, weight, b, stride, padding_string, dilation, groups);
      default: return F::conv3d(input, weight, b, stride, padding_string, dilation, groups);
    }
  }
  switch (dims) {
    case 1: return F::conv1d(input, weight, b, stride, pad, dilation, groups);
    case 2: return F::conv2d(input, weight, b, stride, pad, dilation, groups);
    default: return F::conv3d(input, weight, b, stride, pad, dilation, groups);
  }
}

Tensor ConvNd::forward(const Tensor& input) {
  if (transposed) return conv(input, padding, output_padding);
  if (padding_mode == "zeros") return conv(input, padding, {});
  return conv(F::pad(input, reversed_padding_twice(), padding_mode), DimVector(size_t(dims), 0), {});
}

DimVector ConvNd::padding_for(const Tensor& input, IntArrayRef output_size) const {
  int64_t non_spatial = input.dim() == dims + 2 ? 2 : 1;
  DimVector wanted(output_size);
  if (int64_t(wanted.size()) == dims + non_spatial)
    for (int64_t i = 0; i < non_spatial; ++i) wanted.erase(0);
  EMBER_CHECK(int64_t(wanted.size()) == dims, ValueError, "ConvTranspose", dims, "D: for ", input.dim(),
              "D input, output_size must have ", dims, " or ", dims + non_spatial, " elements (got ",
              output_size.size(), ")");
  DimVector in = spatial_sizes(input, dims), lo, hi, out;
  for (size_t d = 0; d < size_t(dims); ++d) {
    lo.push_back((in[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel_size[d] - 1) + 1);
    hi.push_back(lo.back() + stride[d] - 1);
  }
  for (size_t d = 0; d < size_t(dims); ++d) {
    EMBER_CHECK(lo[d] <= wanted[d] && wanted[d] <= hi[d], ValueError, "requested an output size of ",
                int_list(wanted), ", but valid sizes range from ", int_list(lo), " to ", int_list(hi),
                " (for an input of torch.Size(", int_list(in), "))");
    out.push_back(wanted[d] - lo[d]);
  }
  return out;
}

Tensor ConvNd::forward(const Tensor& input, IntArrayRef output_size) {
  EMBER_CHECK(transposed, TypeError, name_, ".forward() takes no output_size");
  return conv(input, padding, padding_for(input, output_size));
}

std::string ConvNd::extra_repr() const {
  auto all = [](IntArrayRef v, int64_t x) { return std::all_of(v.begin(), v.end(), [x](int64_t e) { return e == x; }); };
  std::string s = str(in_channels, ", ", out_channels, ", kernel_size=", repr_tuple(kernel_size),
                      ", stride=", repr_tuple(stride));
  if (!padding_string.empty()) s += ", padding=" + padding_string;
  else if (!all(padding, 0)) s += ", padding=" + repr_tuple(padding);
  if (!all(dilation, 1)) s += ", dilation=" + repr_tuple(dilation);
  if (!all(output_padding, 0)) s += ", output_padding=" + repr_tuple(output_padding);
  if (groups != 1) s += str(", groups=", groups);
  if (!bias.defined()) s += ", bias=False";
  if (padding_mode != "zeros") s += ", padding_mode=" + padding_mode;
  return s;
}

MaxPoolNd::MaxPoolNd(int64_t dims, const SizeArg& kernel_size, const std::optional<SizeArg>& stride,
                     const SizeArg& padding, const SizeArg& dilation, bool return_indices, bool ceil_mode)
    : Module(str("MaxPool", dims, "d")),
      dims(dims),
      kernel_size(kernel_size),
      stride(stride.value_or(kernel_size)),
      padding(padding),
      dilation(dilation),
      return_indices(return_indices),
      ceil_mode(ceil_mode) {}

std::pair<Tensor, Tensor> MaxPoolNd::forward_with_indices(const Tensor& input) {
  auto f = dims == 1 ? &F::max_pool1d_with_indices : &F::max_pool2d_with_indices;
  return f(input, kernel_size.values, stride.values, padding.values, dilation.values, ceil_mode);
}

Tensor MaxPoolNd::forward(const Tensor& input) {
  auto f = dims == 1 ? &F::max_pool1d : &F::max_pool2d;
  return f(input, kernel_size.values, stride.values, padding.values, dilation.values, ceil_mode);
}

std::string MaxPoolNd::extra_repr() const {
  return str("kernel_size=", kernel_size.repr(), ", stride=", stride.repr(), ", padding=", padding.repr(),
             ", dilation=", dilation.repr(), ", ceil_mode=", ceil_mode ? "True" : "False");
}

AvgPoolNd::AvgPoolNd(int64_t dims, const SizeArg& kernel_size, const std::optional<SizeArg>& stride,
                     const SizeArg& padding, bool ceil_mode, bool count_include_pad,
                     std::optional<int64_t> divisor_override)
    : Module(str("AvgPool", dims, "d")),
      dims(dims),
      kernel_size(kernel_size),
      stride(stride.value_or(kernel_size)),
      padding(padding),
      ceil_mode(ceil_mode),
      count_include_pad(count_include_pad),
      divisor_override(divisor_override) {
  if (dims == 1)  // torch's _single: shown as tuples
    for (SizeArg* a : {&this->kernel_size, &this->stride, &this->padding}) *a = SizeArg(a->expand(1), false);
}

Tensor AvgPoolNd::forward(const Tensor& input) {
  if (dims == 1)
    return F::avg_pool1d(input, kernel_size.values, stride.values, padding.values, ceil_mode, count_include_pad);
  return F::avg_pool2d(input, kernel_size.values, stride.values, padding.values, ceil_mode, count_include_pad,
                       divisor_override);
}

std::string AvgPoolNd::extra_repr() const {
  return str("kernel_size=", kernel_size.repr(), ", stride=", stride.repr(), ", padding=", padding.repr());
}

AdaptivePoolNd::AdaptivePoolNd(std::string name, int64_t dims, bool max, const SizeArg& output_size,
                               bool return_indices)
    : Module(std::move(name)), dims(dims), max(max), output_size(output_size), return_indices(return_indices) {}

std::pair<Tensor, Tensor> AdaptivePoolNd::forward_with_indices(const Tensor& input) {
  DimVector size = output_size.expand(dims);
  return dims == 1 ? F::adaptive_max_pool1d(input, size) : F::adaptive_max_pool2d(input, size);
}

Tensor AdaptivePoolNd::forward(const Tensor& input) {
  if (max) return forward_with_indices(input).first;
  DimVector size = output_size.expand(dims);
  return dims == 1 ? F::adaptive_avg_pool1d(input, size) : F::adaptive_avg_pool2d(input, size);
}

LPPoolNd::LPPoolNd(int64_t dims, const Scalar& norm_type, const SizeArg& kernel_size,
                   const std::optional<SizeArg>& stride, bool ceil_mode)
    : Module(str("LPPool", dims, "d")),
      dims(dims),
      norm_type(norm_type),
      kernel_size(kernel_size),
      stride(stride),
      ceil_mode(ceil_mode) {}

Tensor LPPoolNd::forward(const Tensor& input) {
  // The window's mean of x^p times its size is the sum; negative sums (odd p) become 0 before the root.
  DimVector k = kernel_size.expand(dims), s = stride ? stride->expand(dims) : k;
  Tensor powered = input.pow(norm_type);
  Tensor mean = dims == 1 ? F::avg_pool1d(powered, k, s, {0}, ceil_mode)
                          : F::avg_pool2d(powered, k, s, {0}, ceil_mode);
  int64_t window = 1;
  for (int64_t e : k) window *= e;
  return mean.sign().mul(F::relu(mean.abs())).mul(Scalar(window)).pow(Scalar(1.0 / norm_type.to_double()));
}

std::string LPPoolNd::extra_repr() const {
  return str("norm_type=", repr_scalar(norm_type), ", kernel_size=", kernel_size.repr(),
             ", stride=", stride ? stride->repr() : "None", ", ceil_mode=", ceil_mode ? "True" : "False");
}

}  // namespace ember::nn

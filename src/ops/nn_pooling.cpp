// Pooling (ember/nn/pooling.h): torch's argument checks, output sizes (ceil_mode: the last window starts inside the
// input or its left padding) and node names. Every form becomes windows per axis (PoolAxis) over contiguous
// (planes, H, W) for the kernels; the 1-d forms run the 2-d ones on input.unsqueeze(-2), as torch.
#include "ember/nn/pooling.h"

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/reduce.h"

namespace ember::nn::functional {

namespace {

using autograd::TensorList;

// A 2-d parameter from one or two ints (`fallback` when empty), else torch's message.
std::pair<int64_t, int64_t> pair_param(IntArrayRef v, const char* msg, IntArrayRef fallback = {}) {
  if (v.empty() && !fallback.empty()) v = fallback;
  EMBER_CHECK(v.size() == 1 || v.size() == 2, Error, msg);
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

// torch's pooling_output_shape.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  EMBER_CHECK(stride != 0, Error, "stride should not be zero");
  EMBER_CHECK(pad >= 0, Error, "pad must be non-negative, but got pad: ", pad);
  EMBER_CHECK(pad <= ((k - 1) * dilation + 1) / 2, Error, "pad should be at most half of effective kernel size, but got pad=",
              pad, ", kernel_size=", k, " and dilation=", dilation);
  int64_t num = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// Windows of a strided pooling along one axis: dilated taps inside the input (max), or the clipped run and the
// divisor factor (avg: the window inside input + padding with count_include_pad, else the clipped run).
PoolAxis strided_axis(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t d, bool count_include_pad) {
  PoolAxis a;
  a.step = d;
  for (int64_t o = 0; o < out; ++o) {
    int64_t start = o * s - p, first = 0;
    while (start + first * d < 0) ++first;
    int64_t last = k;  // taps [first, last) fall inside
    while (last > first && start + (last - 1) * d >= in) --last;
    a.start.push_back(start + first * d);
    a.count.push_back(last - first);
    a.span.push_back(count_include_pad ? std::min(start + k, in + p) - start : last - first);
  }
  return a;
}

// Adaptive windows: [floor(o * in / out), ceil((o + 1) * in / out)).
PoolAxis adaptive_axis(int64_t in, int64_t out) {
  PoolAxis a;
  for (int64_t o = 0; o < out; ++o) {
    int64_t start = o * in / out, end = ((o + 1) * in + out - 1) / out;
    a.start.push_back(start);
    a.count.push_back(end - start);
    a.span.push_back(end - start);
  }
  return a;
}

// The input as contiguous planes (P, H, W), and the output shape (..., OH, OW).
Tensor planes(const Tensor& t) { return t.contiguous().view({-1, t.size(-2), t.size(-1)}); }
DimVector pooled_shape(const Tensor& input, int64_t oh, int64_t ow) {
  DimVector s(input.sizes());
  s[s.size() - 2] = oh;
  s[s.size() - 1] = ow;
  return s;
}

// Max pooling takes every number type, average pooling floats and int64, adaptive pooling floats.
enum class Takes { Numbers, FloatsAndLong, Floats };
void check_pool_dtype(const Tensor& input, const char* name, Takes takes) {
  ScalarType t = input.dtype();
  bool ok = t != kBool && !is_float8(t) &&
            (is_floating_point(t) || takes == Takes::Numbers || (takes == Takes::FloatsAndLong && t == kInt64));
  EMBER_CHECK(ok, NotImplementedError, "\"", name, "\" not implemented for '", legacy_name(t), "'");
}

// A pooled result in the input's memory format: channels-last for a 4-D input that suggests it (torch's rule).
Tensor in_format_of(const Tensor& input, const Tensor& out) {
  if (input.dim() != 4 || !is_channels_last_like(input.sizes(), input.strides())) return out;
  return empty_strided(out.sizes(), channels_last_strides(out.sizes()), out.options()).copy_(out);
}

// Max pooling; the indices are computed only when asked for or needed by the gradient.
std::pair<Tensor, Tensor> run_max(const Tensor& input, const PoolAxis& h, const PoolAxis& w, const char* node,
                                  bool want_indices = true) {
  DimVector shape = pooled_shape(input, int64_t(h.start.size()), int64_t(w.start.size()));
  bool indices = want_indices || autograd::needs_grad({&input});
  Tensor out = empty(shape, input.options()), idx = indices ? empty(shape, input.options().dtype(kInt64)) : Tensor();
  if (out.numel()) {
    autograd::untracked([&] {
      DimVector planes_shape{-1, shape[shape.size() - 2], shape.back()};
      kernels::max_pool[input.device()](planes(input), out.view(planes_shape),
                                        indices ? idx.view(planes_shape) : Tensor(), h, w);
      out = in_format_of(input, out);
      if (indices) idx = in_format_of(input, idx);
    });
  }
  if (autograd::needs_grad({&input})) {
    autograd::record(node, out, {&input}, {&input, &idx}, [](const autograd::BackwardContext& c) {
      return TensorList{max_pool_backward(c.grads[0], c.saved[0], c.saved[1])};
    });
  }
  return {out, idx};
}

Tensor avg_backward(const Tensor& grad, IntArrayRef in_sizes, const PoolAxis& h, const PoolAxis& w, int64_t divisor) {
  return autograd::untracked([&] {
    Tensor gi = empty(in_sizes, grad.options());
    if (gi.numel() == 0) return gi;
    Tensor g = planes(grad);
    kernels::avg_pool_backward[grad.device()](g, gi.view({-1, gi.size(-2), gi.size(-1)}), h, w, divisor);
    return gi;
  });
}

Tensor run_avg(const Tensor& input, const PoolAxis& h, const PoolAxis& w, int64_t divisor, const char* node) {
  DimVector shape = pooled_shape(input, int64_t(h.start.size()), int64_t(w.start.size()));
  Tensor out = empty(shape, input.options());
  if (out.numel()) {
    autograd::untracked([&] {
      kernels::avg_pool[input.device()](planes(input), out.view({-1, shape[shape.size() - 2], shape.back()}), h, w,
                                        divisor);
      out = in_format_of(input, out);
    });
  }
  if (autograd::needs_grad({&input})) {
    autograd::record(node, out, {&input}, {}, [h, w, divisor, in = DimVector(input.sizes())](
                                                   const autograd::BackwardContext& c) {
      return TensorList{avg_backward(c.grads[0], in, h, w, divisor)};
    });
  }
  return out;
}

// torch's pool2d_shape_check.
void check_pool2d(const Tensor& input, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                  int64_t dh, int64_t dw, int64_t oh, int64_t ow) {
  EMBER_CHECK(kw > 0 && kh > 0, Error, "kernel size should be greater than zero, but got kH: ", kh, " kW: ", kw);
  EMBER_CHECK(sw > 0 && sh > 0, Error, "stride should be greater than zero, but got dH: ", sh, " dW: ", sw);
  EMBER_CHECK(dh > 0 && dw > 0, Error, "dilation should be greater than zero, but got dilationH: ", dh,
              " dilationW: ", dw);
  int64_t nd = input.dim();
  bool valid = input.size(nd - 2) != 0 && input.size(nd - 1) != 0 && input.size(nd - 3) != 0;
  EMBER_CHECK(valid, Error, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:",
              int_list(input.sizes()));
  EMBER_CHECK(kw / 2 >= pw && kh / 2 >= ph, Error,
              "pad should be smaller than or equal to half of kernel size, but got padW = ", pw, ", padH = ", ph,
              ", kW = ", kw, ", kH = ", kh);
  EMBER_CHECK(ow >= 1 && oh >= 1, Error, "Given input size: (", input.size(nd - 3), "x", input.size(nd - 2), "x",
              input.size(nd - 1), "). Calculated output size: (", input.size(nd - 3), "x", oh, "x", ow,
              "). Output size is too small");
}

// 2-d pooling windows from torch's arguments (dilation 1 for avg).
std::pair<PoolAxis, PoolAxis> pool2d_windows(const char* name, const Tensor& input, IntArrayRef kernel_size,
                                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                             bool ceil_mode, bool count_include_pad) {
  auto [kh, kw] = pair_param(kernel_size, str(name, ": kernel_size must either be a single int, or a tuple of two ints").c_str());
  EMBER_CHECK(stride.size() <= 2, Error, name, ": stride must either be omitted, a single int, or a tuple of two ints");
  auto [sh, sw] = pair_param(stride, "", kernel_size);
  auto [ph, pw] = pair_param(padding, str(name, ": padding must either be a single int, or a tuple of two ints").c_str());
  auto [dh, dw] = pair_param(dilation, str(name, ": dilation must be either a single int, or a tuple of two ints").c_str());
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, Error, "non-empty 3D or 4D (batch mode) tensor expected for input");
  int64_t H = input.size(-2), W = input.size(-1);
  int64_t oh = pooled_size(H, kh, ph, sh, dh, ceil_mode), ow = pooled_size(W, kw, pw, sw, dw, ceil_mode);
  check_pool2d(input, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow);
  return {strided_axis(H, oh, kh, sh, ph, dh, count_include_pad), strided_axis(W, ow, kw, sw, pw, dw, count_include_pad)};
}

// torch's checkDimRange(name, self, 2, 4) and check1d for the 1-d forms.
void check_1d(const Tensor& input, const char* name) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, Error, "Expected 2 to 3 dimensions, but got ", input.dim(),
              "-dimensional tensor for argument #1 'self' (while checking arguments for ", name, ")");
}
DimVector one_int(const char* fn, const char* arg, IntArrayRef v, int64_t lead) {
  EMBER_CHECK(v.size() == 1, Error, fn, "() argument '", arg, "' should contain one int (got ", v.size(), ")");
  return {lead, v[0]};
}

std::pair<PoolAxis, PoolAxis> adaptive_windows(const char* name, const Tensor& input, IntArrayRef output_size) {
  EMBER_CHECK(output_size.size() == 2, Error, name, ": output_size must be 2");
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, Error, name, "(): Expected 3D or 4D tensor, but got",
              std::string_view(name) == "adaptive_max_pool2d" ? ": " : " ", int_list(input.sizes()));
  for (int64_t i = 1; i < input.dim(); ++i) {
    EMBER_CHECK(input.size(i) > 0, Error, name,
                "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
                int_list(input.sizes()), " with dimension ", i, " being empty");
  }
  int64_t H = input.size(-2), W = input.size(-1);
  int64_t oh = output_size[0] < 0 ? H : output_size[0], ow = output_size[1] < 0 ? W : output_size[1];
  return {adaptive_axis(H, oh), adaptive_axis(W, ow)};
}

}  // namespace

namespace {

std::pair<Tensor, Tensor> max_pool2d_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                                          IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, bool indices) {
  auto [h, w] = pool2d_windows("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode, false);
  check_pool_dtype(input, "max_pool2d", Takes::Numbers);
  return run_max(input, h, w, "MaxPool2DWithIndicesBackward0", indices);
}

}  // namespace

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                                                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode, true);
}

Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode, false).first;
}

namespace {

// max_pool1d's windows, over the input viewed (N, C, 1, L) and checked as max_pool2d checks them.
std::pair<PoolAxis, PoolAxis> pool1d_windows(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                                             IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  check_1d(input, "max_pool1d");
  DimVector k = one_int("max_pool1d", "kernel_size", kernel_size, 1);
  DimVector s = one_int("max_pool1d", "stride", stride.empty() ? kernel_size : stride, 1);
  DimVector p = one_int("max_pool1d", "padding", padding, 0), d = one_int("max_pool1d", "dilation", dilation, 1);
  return pool2d_windows("max_pool2d", input.unsqueeze(-2), k, s, p, d, ceil_mode, false);
}

}  // namespace

std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                                                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  auto [h, w] = pool1d_windows(input, kernel_size, stride, padding, dilation, ceil_mode);
  check_pool_dtype(input, "max_pool2d", Takes::Numbers);
  auto [out, idx] = run_max(input.unsqueeze(-2), h, w, "MaxPool2DWithIndicesBackward0", true);
  return {out.squeeze(-2), idx.squeeze(-2)};
}

Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, Error,
              "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:",
              int_list(input.sizes()));
  auto one = [](IntArrayRef v, const char* what, bool may_be_empty) {
    EMBER_CHECK(v.size() == 1 || (may_be_empty && v.empty()), Error, "max_pool1d() ", what, " of size 1 but got size ",
                v.size());
  };
  one(kernel_size, "kernel_size must be an int, list of ints or tuple of ints", false);
  one(stride, "stride must be None, an int, list of ints, or tuple of ints", true);
  one(padding, "padding must be an int, list of ints, or tuple of ints", false);
  one(dilation, "dilation must be an int, list of ints or tuple of ints", false);
  if (autograd::needs_grad({&input})) {
    return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode).first;
  }
  // With no gradient to record, torch's own kernel (max_pool1d_impl): windows checked first, then floats only; a
  // contiguous result.
  auto [h, w] = pool1d_windows(input, kernel_size, stride, padding, dilation, ceil_mode);
  check_pool_dtype(input, "max_pool1d_impl", Takes::Floats);
  Tensor out = run_max(input.unsqueeze(-2), h, w, "MaxPool2DWithIndicesBackward0", false).first.squeeze(-2).contiguous();
  autograd::drop_private_base(out);  // a fresh tensor, as torch's, where contiguous() kept the view
  return out;
}

Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  EMBER_CHECK(!divisor_override || *divisor_override != 0, Error, "divisor must be not zero");
  auto [h, w] = pool2d_windows("avg_pool2d", input, kernel_size, stride, padding, {1}, ceil_mode, count_include_pad);
  check_pool_dtype(input, "avg_pool2d", Takes::FloatsAndLong);
  return run_avg(input, h, w, divisor_override.value_or(0), "AvgPool2DBackward0");
}

Tensor& avg_pool2d_out(Tensor& out, const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                       IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                       std::optional<int64_t> divisor_override) {
  EMBER_CHECK(out.dtype() == input.dtype(), Error, "Expected out tensor to have dtype ",
              dtype_info(input.dtype()).cpp_name, ", but got ", dtype_info(out.dtype()).cpp_name, " instead");
  return composite_out(out, {&input}, "avg_pool2d", [&] {
    return avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
  });
}

Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad) {
  check_1d(input, "avg_pool1d");
  DimVector k = one_int("avg_pool1d", "kernel_size", kernel_size, 1);
  DimVector s = one_int("avg_pool1d", "stride", stride.empty() ? kernel_size : stride, 1);
  DimVector p = one_int("avg_pool1d", "padding", padding, 0);
  return avg_pool2d(input.unsqueeze(-2), k, s, p, ceil_mode, count_include_pad).squeeze(-2);
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  EMBER_CHECK(output_size.size() == 2, Error, "adaptive_avg_pool2d: output_size must be 2");
  if (output_size[0] == 1 && output_size[1] == 1 && input.dim() >= 2) return mean(input, {-1, -2}, true);
  auto [h, w] = adaptive_windows("adaptive_avg_pool2d", input, output_size);
  check_pool_dtype(input, "adaptive_avg_pool2d", Takes::Floats);
  return run_avg(input, h, w, 0, "AdaptiveAvgPool2DBackward0");
}

Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size) {
  check_1d(input, "adaptive_avg_pool1d");
  return adaptive_avg_pool2d(input.unsqueeze(-2), one_int("adaptive_avg_pool1d", "output_size", output_size, 1))
      .squeeze(-2);
}

std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size) {
  auto [h, w] = adaptive_windows("adaptive_max_pool2d", input, output_size);
  check_pool_dtype(input, "adaptive_max_pool2d", Takes::Floats);
  return run_max(input, h, w, "AdaptiveMaxPool2DBackward0");
}

std::pair<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size) {
  check_1d(input, "adaptive_max_pool1d");
  auto [out, idx] =
      adaptive_max_pool2d(input.unsqueeze(-2), one_int("adaptive_max_pool1d", "output_size", output_size, 1));
  return {out.squeeze(-2), idx.squeeze(-2)};
}

Tensor max_pool_backward(const Tensor& grad_output, const Tensor& input, const Tensor& indices) {
  return autograd::untracked([&] {
    Tensor gi = empty(input.sizes(), grad_output.options());
    if (gi.numel() == 0) return gi;
    kernels::max_pool_backward[grad_output.device()](planes(grad_output), planes(indices),
                                                     gi.view({-1, gi.size(-2), gi.size(-1)}));
    return gi;
  });
}

}  // namespace ember::nn::functional

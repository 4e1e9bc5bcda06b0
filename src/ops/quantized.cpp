// Quantized tensors: a strided tensor of a quantized dtype over its integers' storage, with a Quantizer. Made here
// (quantize_*, clones, views); element kernels refuse them (visit_dtype), as torch's CPU backend has none.
#include "ember/quantized.h"

#include <algorithm>
#include <mutex>

#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/layout.h"

namespace ember {

namespace {

constexpr const char* kDeprecation =
    "torch.quantize_per_tensor, torch.quantize_per_channel and other quantized tensor creation functions that produce "
    "tensors with dtype torch.quint8, torch.qint8, and torch.qint32 are deprecated and will be removed in a future "
    "PyTorch release. Please see https://github.com/pytorch/pytorch/issues/184982 for more information.";

// torch 2.13 warns once per process that these constructors are deprecated.
void warn_deprecated_once() {
  static std::once_flag once;
  std::call_once(once, [] { warn(kDeprecation); });
}

// `raw` (the integers, of dtype storage_type(dtype)) re-typed in place as a quantized tensor.
Tensor as_quantized(Tensor raw, ScalarType dtype, std::shared_ptr<const Quantizer> quantizer) {
  raw.impl()->dtype = dtype;
  raw.impl()->quantizer = std::move(quantizer);
  return raw;
}

// The integers of a quantized tensor, as a tensor of their own type over the same storage and geometry.
Tensor raw_view(const Tensor& q) {
  return Tensor::make(q.storage(), DimVector(q.sizes()), DimVector(q.strides()), q.storage_offset(),
                      storage_type(q.dtype()));
}

// torch's suggest_memory_format: channels-last where the strides order the dims so.
MemoryFormat suggested_format(const Tensor& t) {
  if (t.dim() == 4 && is_channels_last_like(t.sizes(), t.strides())) return MemoryFormat::ChannelsLast;
  if (t.dim() == 5 && is_channels_last_like(t.sizes(), t.strides())) return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

void check_quantized_dtype(ScalarType dtype) {
  EMBER_CHECK(is_quantized(dtype), Error, "ScalarType ", legacy_name(dtype), " is not supported in new_qtensor.");
}

void check_zero_point(int64_t zero_point, ScalarType dtype, const char* fn) {
  int64_t lo = dtype == kQUInt8 ? 0 : dtype == kQInt8 ? -128 : INT32_MIN;
  int64_t hi = dtype == kQUInt8 ? 255 : dtype == kQInt8 ? 127 : INT32_MAX;
  EMBER_CHECK(zero_point >= lo, Error, fn, " zero_point ", zero_point, " is below lower bound.");
  EMBER_CHECK(zero_point <= hi, Error, fn, " zero_point ", zero_point, " is above upper bound.");
}

// The quantizer's parameters as the kernels read them, for a row-major tensor of `sizes`.
struct ChannelParams {
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
  int64_t inner = 0;
  bool per_channel = false;
  kernels::AffineParams view() const {
    return {scales.data(), zero_points.data(), int64_t(scales.size()), inner, per_channel};
  }
};

ChannelParams params_of(const Quantizer& q, IntArrayRef sizes) {
  ChannelParams p;
  if (!q.per_channel()) {
    p.scales = {q.scale};
    p.zero_points = {q.zero_point};
    p.inner = safe_numel(sizes);
    return p;
  }
  Tensor s = q.scales.contiguous(), z = q.zero_points.contiguous();
  p.scales.assign(s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
  p.zero_points.assign(z.data_ptr<int64_t>(), z.data_ptr<int64_t>() + z.numel());
  p.inner = 1;
  p.per_channel = true;
  for (size_t d = size_t(q.axis) + 1; d < sizes.size(); ++d) p.inner *= sizes[d];
  return p;
}

// float32 `input` quantized with `quantizer` into a new tensor of `dtype` (torch's memory format rule).
Tensor quantize_with(const Tensor& input, ScalarType dtype, std::shared_ptr<const Quantizer> quantizer) {
  MemoryFormat format = suggested_format(input);
  // Per-channel kernels index channels in row-major order; the channels-last result is a copy of that.
  Tensor src = input.contiguous(quantizer->per_channel() ? MemoryFormat::Contiguous : format);
  Tensor raw = empty_strided(src.sizes(), src.strides(), src.options().dtype(storage_type(dtype)));
  ChannelParams p = params_of(*quantizer, src.sizes());
  kernels::quantize[src.device()](raw, src, p.view());
  if (quantizer->per_channel()) raw = raw.contiguous(format);
  return as_quantized(raw, dtype, std::move(quantizer));
}

double scalar_of(const Tensor& t) { return t.item().to<double>(); }

}  // namespace

std::string_view qscheme_name(QScheme s) {
  static constexpr std::string_view names[kNumQSchemes] = {
      "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric",
      "per_channel_affine_float_qparams"};
  return names[int(s)];
}

Tensor quantize_per_tensor(const Tensor& input, double scale, int64_t zero_point, ScalarType dtype) {
  warn_deprecated_once();
  check_quantized_dtype(dtype);
  EMBER_CHECK(input.dtype() == kFloat32, Error, "Quantize only works on Float Tensor, got ",
              legacy_name(input.dtype()));
  check_zero_point(zero_point, dtype, "quantize_tensor_per_tensor_affine");
  auto quantizer = std::make_shared<Quantizer>();
  quantizer->scale = scale;
  quantizer->zero_point = zero_point;
  return quantize_with(input, dtype, std::move(quantizer));
}

Tensor quantize_per_tensor(const Tensor& input, const Tensor& scale, const Tensor& zero_point, ScalarType dtype) {
  return quantize_per_tensor(input, scalar_of(scale), zero_point.item().to<int64_t>(), dtype);
}

std::vector<Tensor> quantize_per_tensor(const std::vector<Tensor>& inputs, const Tensor& scales,
                                        const Tensor& zero_points, ScalarType dtype) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto n = int64_t(i);
    out.push_back(quantize_per_tensor(inputs[i], scales.select(0, n), zero_points.select(0, n), dtype));
  }
  return out;
}

Tensor quantize_per_channel(const Tensor& input, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                            ScalarType dtype) {
  warn_deprecated_once();
  check_quantized_dtype(dtype);
  EMBER_CHECK(scales.is_floating_point(), Error, "scale tensor must be floating point");
  EMBER_CHECK(scales.dim() == 1, Error, "scale tensor must have dimension 1");
  EMBER_CHECK(zero_points.dim() == 1, Error, "zero_points tensor must have dimension 1");
  EMBER_CHECK(scales.numel() == zero_points.numel(), Error, "number of elements in scales and zero_points must match");
  // torch keeps float zero points as a separate scheme (per_channel_affine_float_qparams), made only by observers.
  EMBER_CHECK(!zero_points.is_floating_point(), NotImplementedError, "quantize_per_channel: float zero_points (the "
              "per_channel_affine_float_qparams scheme) are not supported; pass integer zero_points");
  EMBER_CHECK(input.dtype() == kFloat32, Error, "quantize_tensor_per_channel_affine expects a Float Tensor, got ",
              legacy_name(input.dtype()));
  EMBER_CHECK(axis >= 0 && axis < input.dim(), Error, "Channel axis out of range in per channel affine quantization. "
              "Got: ", axis, "Expected: [0, ", input.dim(), ")");
  EMBER_CHECK(scales.numel() == input.size(axis), Error, "length of scales must equal to channel, expected ",
              input.size(axis), " got, ", scales.numel());
  auto quantizer = std::make_shared<Quantizer>();
  quantizer->scheme = QScheme::PerChannelAffine;
  quantizer->scales = scales.to(kCPU).to(kFloat64, true).contiguous();
  quantizer->zero_points = zero_points.to(kCPU).to(kInt64, true).contiguous();
  quantizer->axis = axis;
  const int64_t* z = quantizer->zero_points.data_ptr<int64_t>();
  for (int64_t c = 0; c < quantizer->zero_points.numel(); ++c) {
    check_zero_point(z[c], dtype, "quantize_tensor_per_channel_affine");
  }
  return quantize_with(input, dtype, std::move(quantizer));
}

Tensor dequantize(const Tensor& t) {
  if (!t.is_quantized()) return t.to(kFloat32);
  const Quantizer& q = quantizer_of(t);
  MemoryFormat format = suggested_format(t);
  Tensor raw = raw_view(t).contiguous(q.per_channel() ? MemoryFormat::Contiguous : format);
  Tensor out = empty_strided(raw.sizes(), raw.strides(), raw.options().dtype(kFloat32));
  ChannelParams p = params_of(q, raw.sizes());
  kernels::dequantize[raw.device()](out, raw, p.view());
  return q.per_channel() ? out.contiguous(format) : out;
}

std::vector<Tensor> dequantize(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(dequantize(t));
  return out;
}

Tensor int_repr(const Tensor& t) {
  EMBER_CHECK(t.is_quantized(), NotImplementedError, "int_repr expects a quantized tensor, got one of dtype torch.",
              dtype_name(t.dtype()));
  return raw_view(t).clone(suggested_format(t));  // a copy, as torch's, even of a dense tensor
}

const Quantizer& quantizer_of(const Tensor& t) {
  EMBER_CHECK(t.is_quantized() && t.impl()->quantizer, NotImplementedError,
              "expected a quantized tensor, got one of dtype torch.", dtype_name(t.dtype()));
  return *t.impl()->quantizer;
}

QScheme qscheme(const Tensor& t) { return quantizer_of(t).scheme; }

namespace {
const Quantizer& per_tensor_quantizer(const Tensor& t) {
  const Quantizer& q = quantizer_of(t);
  EMBER_CHECK(!q.per_channel(), Error, "expected a per-tensor quantized tensor, but its scheme is torch.",
              qscheme_name(q.scheme), " (use q_per_channel_scales() and q_per_channel_zero_points())");
  return q;
}
const Quantizer& per_channel_quantizer(const Tensor& t) {
  const Quantizer& q = quantizer_of(t);
  EMBER_CHECK(q.per_channel(), Error, "expected a per-channel quantized tensor, but its scheme is torch.",
              qscheme_name(q.scheme), " (use q_scale() and q_zero_point())");
  return q;
}
}  // namespace

double q_scale(const Tensor& t) { return per_tensor_quantizer(t).scale; }
int64_t q_zero_point(const Tensor& t) { return per_tensor_quantizer(t).zero_point; }
Tensor q_per_channel_scales(const Tensor& t) { return per_channel_quantizer(t).scales.clone(); }
Tensor q_per_channel_zero_points(const Tensor& t) { return per_channel_quantizer(t).zero_points.clone(); }
int64_t q_per_channel_axis(const Tensor& t) { return per_channel_quantizer(t).axis; }

Tensor make_quantized(const Tensor& raw, ScalarType dtype, const Quantizer& quantizer) {
  check_quantized_dtype(dtype);
  EMBER_CHECK(raw.dtype() == storage_type(dtype), Error, "a ", dtype_name(dtype), " tensor stores ",
              dtype_name(storage_type(dtype)), " integers, not ", dtype_name(raw.dtype()));
  auto q = std::make_shared<Quantizer>(quantizer);
  if (q->per_channel()) {
    EMBER_CHECK(q->axis >= 0 && q->axis < raw.dim() && q->scales.dim() == 1 && q->zero_points.dim() == 1 &&
                    q->scales.numel() == raw.size(q->axis) && q->zero_points.numel() == raw.size(q->axis),
                Error, "per-channel parameters of ", q->scales.numel(), " scales and ", q->zero_points.numel(),
                " zero points along axis ", q->axis, " do not fit a tensor of shape ", int_list(raw.sizes()));
    // No copy when they already are: a checkpoint's tensors are filled after unpickling, in parallel.
    q->scales = q->scales.to(kCPU).to(kFloat64).contiguous();
    q->zero_points = q->zero_points.to(kCPU).to(kInt64).contiguous();
  }
  Tensor view = Tensor::make(raw.storage(), DimVector(raw.sizes()), DimVector(raw.strides()), raw.storage_offset(),
                             raw.dtype());
  return as_quantized(view, dtype, std::move(q));
}

Tensor quantized_clone(const Tensor& t, MemoryFormat format) {
  MemoryFormat f = format == MemoryFormat::Preserve ? suggested_format(t) : format;
  return as_quantized(raw_view(t).clone(f), t.dtype(), t.impl()->quantizer);
}

void quantized_copy_(Tensor& self, const Tensor& src) {
  EMBER_CHECK(self.is_quantized(), Error, "Copying from quantized Tensor to non-quantized Tensor is not allowed, "
              "please use dequantize to get a float Tensor from a quantized Tensor");
  EMBER_CHECK(std::ranges::equal(self.sizes(), src.sizes()), Error,
              "Quantized copy only works with Tensors with the same shape");
  check_no_internal_overlap(self);
  Tensor raw;
  if (src.is_quantized()) {
    EMBER_CHECK(qscheme(self) == qscheme(src), Error, "Quantized Copy only works with same qscheme");
    EMBER_CHECK(self.dtype() == src.dtype(), Error, "Quantized copy needs tensors of one dtype, got ",
                dtype_name(self.dtype()), " and ", dtype_name(src.dtype()));
    raw = raw_view(src);
    self.impl()->quantizer = src.impl()->quantizer;  // torch's copy_ takes src's parameters
  } else {
    EMBER_CHECK(src.dtype() == kFloat32, Error, "Quantized copy only works with kFloat as source Tensor");
    raw = raw_view(quantize_with(src, self.dtype(), self.impl()->quantizer));
  }
  if (overlap(self, raw) != Overlap::None) raw = raw.clone();
  kernels::copy[self.device()](raw_view(self), raw);
  self.bump_version();
}

Tensor quantized_view(const Tensor& base, DimVector sizes, DimVector strides, int64_t offset) {
  const Quantizer& q = quantizer_of(base);
  bool same = std::ranges::equal(IntArrayRef(sizes), base.sizes()) &&
              std::ranges::equal(IntArrayRef(strides), base.strides()) && offset == base.storage_offset();
  EMBER_CHECK(!q.per_channel() || same, Error, "Setting strides is possible only on uniformly quantized tensor "
              "(this tensor is quantized per channel along dim ", q.axis, ")");
  Tensor raw = Tensor::make(base.storage(), std::move(sizes), std::move(strides), offset, storage_type(base.dtype()));
  return as_quantized(raw, base.dtype(), base.impl()->quantizer);
}

}  // namespace ember

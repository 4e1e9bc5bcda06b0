// Quantized tensors: a strided tensor of a quantized dtype over its integers' storage, with a Quantizer. Made here
// (quantize_*, clones, views); element kernels refuse them (visit_dtype), as torch's CPU backend has none.
#include "ember/sparse.h"
#include "ember/quantized.h"

#include <algorithm>
#include <mutex>

#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"

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
Tensor tag_quantized(Tensor raw, ScalarType dtype, std::shared_ptr<const Quantizer> quantizer) {
  raw.impl()->dtype = dtype;
  raw.impl()->quantizer = std::move(quantizer);
  return raw;
}

// A per-channel quantizer with its channels anchored in t's storage (Quantizer::anchor_*); others as they are.
std::shared_ptr<const Quantizer> anchored(std::shared_ptr<const Quantizer> q, const Tensor& t) {
  if (!q->per_channel()) return q;
  auto a = std::make_shared<Quantizer>(*q);
  a->anchor_offset = t.storage_offset();
  a->anchor_channels = t.size(q->axis);
  a->first_channel = 0;
  // In a dense tensor the dims faster than the axis fill exactly one stride of it, the slower ones whole channels.
  bool dense = is_non_overlapping_and_dense(t.sizes(), t.strides());
  a->anchor_stride = dense ? std::max<int64_t>(t.stride(q->axis), 1) : 0;
  return a;
}

// `raw` as a quantized tensor whose per-channel quantizer is anchored in raw's storage.
Tensor as_quantized(Tensor raw, ScalarType dtype, std::shared_ptr<const Quantizer> quantizer) {
  auto q = anchored(std::move(quantizer), raw);
  return tag_quantized(std::move(raw), dtype, std::move(q));
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
  return quantize_per_tensor(input, scale.item().to<double>(), zero_point.item().to<int64_t>(), dtype);
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
  if (t.has_sparse_layout()) throw_sparse_unsupported(t, "dequantize.self");
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

Tensor quantized_cat(std::span<const Tensor> tensors, int64_t dim) {
  const Tensor& first = tensors[0];
  std::vector<Tensor> raws;
  bool requantized = false;
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.is_quantized(), NotImplementedError, "cat of quantized and non-quantized tensors (torch.",
                dtype_name(t.dtype()), "): quantize or dequantize them all first");
    EMBER_CHECK(!quantizer_of(t).per_channel(), Error, "Only per-tensor quantization is supported in 'cat'!");
    EMBER_CHECK(t.dtype() == first.dtype(), Error, "cat of quantized tensors of dtypes ", dtype_name(first.dtype()),
                " and ", dtype_name(t.dtype()));
    bool same = q_scale(t) == q_scale(first) && q_zero_point(t) == q_zero_point(first);
    requantized |= !same;
    raws.push_back(raw_view(same ? t : quantize_per_tensor(dequantize(t), q_scale(first), q_zero_point(first),
                                                          first.dtype())));
  }
  if (requantized) {
    warn("All inputs of this cat operator must share the same quantization parameters. Otherwise large numerical "
         "inaccuracies may occur.");
  }
  return as_quantized(cat(raws, dim), first.dtype(), first.impl()->quantizer);
}

Tensor quantized_clone(const Tensor& t, MemoryFormat format) {
  MemoryFormat f = format == MemoryFormat::Preserve ? suggested_format(t) : format;
  return as_quantized(raw_view(t).clone(f), t.dtype(), t.impl()->quantizer);
}

void quantized_copy_(Tensor& self, const Tensor& src) {
  EMBER_CHECK(self.is_quantized(), Error, "Copying from quantized Tensor to non-quantized Tensor is not allowed, "
              "please use dequantize to get a float Tensor from a quantized Tensor");
  if (!src.is_quantized()) {  // torch's checks for a float source, in its order
    EMBER_CHECK(src.dtype() == kFloat32, Error, "Quantized copy only works with kFloat as source Tensor");
    auto both = [&](MemoryFormat f) { return self.is_contiguous(f) && src.is_contiguous(f); };
    EMBER_CHECK(both(MemoryFormat::Contiguous) || both(MemoryFormat::ChannelsLast), Error,
                "Quantized copy only works with contiguous and NHWC Tensors");
  }
  EMBER_CHECK(std::ranges::equal(self.sizes(), src.sizes()), Error,
              "Quantized copy only works with Tensors with the same shape");
  check_no_internal_overlap(self);
  Tensor raw;
  if (src.is_quantized()) {
    EMBER_CHECK(qscheme(self) == qscheme(src), Error, "Quantized Copy only works with same qscheme");
    EMBER_CHECK(self.dtype() == src.dtype(), Error, "Quantized copy needs tensors of one dtype, got ",
                dtype_name(self.dtype()), " and ", dtype_name(src.dtype()));
    raw = raw_view(src);
    self.impl()->quantizer = anchored(src.impl()->quantizer, self);  // torch's copy_ takes src's parameters
  } else {
    raw = raw_view(quantize_with(src, self.dtype(), self.impl()->quantizer));
  }
  if (overlap(self, raw) != Overlap::None) raw = raw.clone();
  kernels::copy[self.device()](raw_view(self), raw);
  self.bump_version();
}

namespace {

// The quantizer of a view (sizes, strides, offset) of a per-channel tensor quantized by q, or null where the view's
// elements do not keep their channels along one dim (see quantized_view).
std::shared_ptr<const Quantizer> per_channel_view(const Quantizer& q, IntArrayRef sizes, IntArrayRef strides,
                                                  int64_t offset) {
  const int64_t stride = q.anchor_stride, channels = q.anchor_channels, rel = offset - q.anchor_offset;
  if (stride == 0 || rel < 0) return nullptr;
  std::optional<int64_t> axis;
  int64_t inner_reach = rel % stride;  // the farthest position within one channel's stride that the view reaches
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] <= 1 || strides[d] % (stride * channels) == 0) continue;  // no move, or whole channel cycles
    if (strides[d] % stride == 0 && !axis) axis = int64_t(d);  // every step-th channel (x[:, ::2])
    else if (strides[d] < stride) inner_reach += (sizes[d] - 1) * strides[d];
    else return nullptr;
  }
  int64_t first = (rel / stride) % channels - q.first_channel, step = axis ? strides[size_t(*axis)] / stride : 1;
  int64_t last = axis ? first + step * (sizes[size_t(*axis)] - 1) : first;
  if (inner_reach >= stride || first < 0 || last >= q.scales.numel()) return nullptr;
  auto v = std::make_shared<Quantizer>(q);
  if (!axis) {  // one channel: per tensor, as torch's select along the axis
    v->scheme = QScheme::PerTensorAffine;
    v->scale = q.scales.data_ptr<double>()[first];
    v->zero_point = q.zero_points.data_ptr<int64_t>()[first];
    v->scales = v->zero_points = Tensor();
    return v;
  }
  v->axis = *axis;
  v->first_channel = q.first_channel + first;
  v->scales = q.scales.slice(0, first, last + 1, step).contiguous();
  v->zero_points = q.zero_points.slice(0, first, last + 1, step).contiguous();
  if (step > 1) v->anchor_stride = 0;  // its scales skip channels: views of it would index them wrongly
  return v;
}

}  // namespace

Tensor quantized_view(const Tensor& base, DimVector sizes, DimVector strides, int64_t offset) {
  const Quantizer& q = quantizer_of(base);
  bool same = std::ranges::equal(IntArrayRef(sizes), base.sizes()) &&
              std::ranges::equal(IntArrayRef(strides), base.strides()) && offset == base.storage_offset();
  std::shared_ptr<const Quantizer> quantizer = base.impl()->quantizer;
  if (q.per_channel() && !same) {
    bool empty = std::ranges::any_of(sizes, [](int64_t s) { return s == 0; });
    if (!empty) quantizer = per_channel_view(q, sizes, strides, offset);
    EMBER_CHECK(!empty && quantizer, Error, "Setting strides is possible only on uniformly quantized tensor (a view "
                "of shape ", int_list(sizes), " would not keep the channels of dim ", q.axis, " along one dim)");
  }
  Tensor raw = Tensor::make(base.storage(), std::move(sizes), std::move(strides), offset, storage_type(base.dtype()));
  return tag_quantized(raw, base.dtype(), std::move(quantizer));
}

}  // namespace ember

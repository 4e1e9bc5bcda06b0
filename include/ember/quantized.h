// Quantized tensors (torch.quantize_per_tensor and friends): integers of dtype qint8, quint8 or qint32 that stand
// for float32 values x = (q - zero_point) * scale, with one scale for the tensor or one per channel of an axis.
// They are strided tensors over their integer storage; views keep the quantizer, element ops raise.
#pragma once
#include <span>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// torch.qscheme; the symmetric and float-qparams schemes exist as names (torch makes them only in observers).
enum class QScheme : int8_t {
  PerTensorAffine, PerChannelAffine, PerTensorSymmetric, PerChannelSymmetric, PerChannelAffineFloatQParams,
};
inline constexpr int kNumQSchemes = 5;
std::string_view qscheme_name(QScheme s);  // "per_tensor_affine"

struct Quantizer {
  QScheme scheme = QScheme::PerTensorAffine;
  double scale = 1.0;        // per tensor
  int64_t zero_point = 0;
  Tensor scales;             // per channel: float64, one per index of `axis`
  Tensor zero_points;        // int64, as many
  int64_t axis = 0;
  // Per channel, where the channels lie in the storage, so that views can find theirs: the element at storage
  // position p is in channel ((p - anchor_offset) / anchor_stride) % anchor_channels - first_channel of these
  // scales. Set from a dense tensor; anchor_stride 0 where none was (views that move the channels then raise).
  int64_t anchor_offset = 0, anchor_stride = 0, anchor_channels = 0, first_channel = 0;
  bool per_channel() const { return scheme == QScheme::PerChannelAffine; }
};

// float32 input -> quantized of `dtype`; q = clamp(zero_point + round_half_even(x / scale)), computed as torch's
// CPU kernels do (x * (1 / scale) in float32).
Tensor quantize_per_tensor(const Tensor& input, double scale, int64_t zero_point, ScalarType dtype);
Tensor quantize_per_tensor(const Tensor& input, const Tensor& scale, const Tensor& zero_point, ScalarType dtype);
std::vector<Tensor> quantize_per_tensor(const std::vector<Tensor>& inputs, const Tensor& scales,
                                        const Tensor& zero_points, ScalarType dtype);
Tensor quantize_per_channel(const Tensor& input, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                            ScalarType dtype);
// The float32 values a quantized tensor stands for; other tensors convert to float32, as torch.
Tensor dequantize(const Tensor& t);
std::vector<Tensor> dequantize(const std::vector<Tensor>& ts);
Tensor int_repr(const Tensor& t);  // the stored integers (uint8, int8 or int32), a new tensor

// The quantizer's parameters; each raises torch's error for a tensor that is not quantized that way.
const Quantizer& quantizer_of(const Tensor& t);
QScheme qscheme(const Tensor& t);
double q_scale(const Tensor& t);
int64_t q_zero_point(const Tensor& t);
Tensor q_per_channel_scales(const Tensor& t);
Tensor q_per_channel_zero_points(const Tensor& t);
int64_t q_per_channel_axis(const Tensor& t);

// A quantized tensor over the integers of `raw` (dtype storage_type(dtype)), sharing its storage, and sharing the
// quantizer's per-channel tensors when they are float64 / int64 on the CPU (checkpoints, pickles).
Tensor make_quantized(const Tensor& raw, ScalarType dtype, const Quantizer& quantizer);
// cat of per-tensor quantized tensors of one dtype: the others are requantized to the first's scale and zero point
// (torch's quantized cat); stack goes through it.
Tensor quantized_cat(std::span<const Tensor> tensors, int64_t dim);
// A copy of a quantized tensor (clone, contiguous): same quantizer, dense strides in `format`.
Tensor quantized_clone(const Tensor& t, MemoryFormat format);
// self.copy_(src) for a quantized self: a float src is quantized with self's parameters, a quantized src of the
// same dtype and scheme is copied with its quantizer (torch's quantized copy_).
void quantized_copy_(Tensor& self, const Tensor& src);
// A view over a quantized base's storage: per-tensor quantizers carry over. Per channel, the view's elements must
// keep one channel along at most one dim (its new axis, with those channels' scales) and none elsewhere; a view
// within one channel is per tensor (torch's select along the axis). Other views raise torch's "Setting strides is
// possible only on uniformly quantized tensor".
Tensor quantized_view(const Tensor& base, DimVector sizes, DimVector strides, int64_t offset);

}  // namespace ember

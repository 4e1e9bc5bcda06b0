// Affine quantization and dequantization with the rounding of torch's CPU kernels, which differ by path:
// - per tensor, 8-bit (fbgemm): q = round_half_even(fma(x, 1 / scale, zero_point)), NaN to the largest value;
// - per tensor qint32 and every per-channel dtype (quantize_val): the product rounds before the zero point is added,
//   NaN gives 0 (8-bit) or the smallest int32;
// - dequantization (q - zero_point) * scale: per tensor in float32; per channel the difference in float32, the
//   product in double.
// Out-of-range values saturate. Built with -ffp-contract=off so that each formula is exactly that.
#include "quantize_kernel.h"

#include <cmath>
#include <limits>

#include "ember/parallel.h"

namespace ember::cpu {

namespace {

template <typename Q>
Q quantize_one(float x, float inv_scale, float zero_point, bool fused) {
  constexpr float lo = float(std::numeric_limits<Q>::min()), hi = float(std::numeric_limits<Q>::max());
  float v = std::nearbyint(fused ? std::fma(x, inv_scale, zero_point) : zero_point + x * inv_scale);
  if (std::isnan(v)) {
    if (fused) return std::numeric_limits<Q>::max();
    return sizeof(Q) == 1 ? Q(0) : std::numeric_limits<Q>::min();
  }
  if (v <= lo) return std::numeric_limits<Q>::min();
  if (v >= hi) return std::numeric_limits<Q>::max();  // int32's max is not a float: 2^31 saturates here
  return Q(v);
}

// fn(Q{}) with Q the stored integer type of a raw (uint8, int8, int32) tensor.
template <typename Fn>
void visit_raw(ScalarType t, Fn&& fn) {
  if (t == kUInt8) fn(uint8_t{});
  else if (t == kInt8) fn(int8_t{});
  else fn(int32_t{});
}

// body(first, last, scale, zero_point) over runs of one channel, split over the thread pool.
template <typename Body>
void for_each_run(int64_t numel, const kernels::AffineParams& p, Body&& body) {
  int64_t inner = std::max<int64_t>(p.inner, 1);
  parallel_for(0, numel, 32768, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end;) {
      int64_t c = (i / inner) % p.channels, last = std::min(end, (i / inner + 1) * inner);
      body(i, last, p.scales[c], p.zero_points[c]);
      i = last;
    }
  });
}

}  // namespace

void quantize_kernel(const Tensor& dst, const Tensor& src, const kernels::AffineParams& params) {
  const float* in = src.data_ptr<float>();
  visit_raw(dst.dtype(), [&]<typename Q>(Q) {
    Q* out = dst.data_ptr<Q>();
    bool fused = sizeof(Q) == 1 && !params.per_channel;
    for_each_run(dst.numel(), params, [&](int64_t first, int64_t last, double scale, int64_t zero_point) {
      float inv_scale = 1.0f / float(scale), zp = float(zero_point);
      for (int64_t i = first; i < last; ++i) out[i] = quantize_one<Q>(in[i], inv_scale, zp, fused);
    });
  });
}

void dequantize_kernel(const Tensor& dst, const Tensor& src, const kernels::AffineParams& params) {
  float* out = dst.data_ptr<float>();
  visit_raw(src.dtype(), [&]<typename Q>(Q) {
    const Q* in = src.data_ptr<Q>();
    for_each_run(dst.numel(), params, [&](int64_t first, int64_t last, double scale, int64_t zero_point) {
      if (params.per_channel) {
        float zp = float(zero_point);
        for (int64_t i = first; i < last; ++i) out[i] = float(double(float(in[i]) - zp) * scale);
        return;
      }
      float s = float(scale), zp = float(zero_point);
      for (int64_t i = first; i < last; ++i) out[i] = (float(in[i]) - zp) * s;
    });
  });
}

}  // namespace ember::cpu

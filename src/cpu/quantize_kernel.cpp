// Affine quantization and dequantization with the rounding of torch's CPU kernels, which differ by path:
// - per tensor, 8-bit (fbgemm): q = round_half_even(fma(x, 1 / scale, zero_point)), NaN to the largest value;
// - per tensor qint32 and every per-channel dtype (quantize_val): the product rounds before the zero point is added,
//   NaN gives 0 (8-bit) or the smallest int32;
// - dequantization (q - zero_point) * scale: per tensor in float32; per channel the difference in float32, the
//   product in double.
// Out-of-range values saturate. Built with -ffp-contract=off so that each formula is exactly that, and without
// trapping math so that the 8-bit loops vectorise (rint, min/max and a select per element, no branch).
#include "quantize_kernel.h"

#include <cmath>
#include <limits>
#include <type_traits>
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include "ember/parallel.h"

namespace ember::cpu {

namespace {

template <typename Q, bool Fused>
Q quantize_one(float x, float inv_scale, float zero_point) {
  constexpr float lo = float(std::numeric_limits<Q>::min()), hi = float(std::numeric_limits<Q>::max());
  float v = std::rint(Fused ? std::fma(x, inv_scale, zero_point) : zero_point + x * inv_scale);
  if constexpr (sizeof(Q) == 1) {
    // NaN fails both comparisons, so the clamp takes it to hi (fbgemm's answer); quantize_val's is 0
    float a = v < hi ? v : hi;
    a = a > lo ? a : lo;
    if constexpr (!Fused) a = v == v ? a : 0.0f;
    return Q(int32_t(a));
  } else {
    if (v != v || v <= lo) return std::numeric_limits<Q>::min();
    if (v >= hi) return std::numeric_limits<Q>::max();  // int32's max is not a float: 2^31 saturates here
    return Q(v);
  }
}

#if defined(__AVX2__) && defined(__FMA__)
// The fused 8-bit path, 32 values a step (GCC's vectorisation of the clamp costs twice as much). min then max
// clamps NaN to hi, as quantize_one: each passes its second operand on NaN.
template <typename Q>
int64_t quantize_fused_avx2(const float* in, Q* out, int64_t n, float inv_scale, float zero_point) {
  const __m256 inv = _mm256_set1_ps(inv_scale), zp = _mm256_set1_ps(zero_point);
  const __m256 lo = _mm256_set1_ps(float(std::numeric_limits<Q>::min()));
  const __m256 hi = _mm256_set1_ps(float(std::numeric_limits<Q>::max()));
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);  // undoes the packs' interleaving of lanes
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i q[4];
    for (int k = 0; k < 4; ++k) {
      __m256 v = _mm256_fmadd_ps(_mm256_loadu_ps(in + i + 8 * k), inv, zp);
      v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      q[k] = _mm256_cvtps_epi32(_mm256_max_ps(_mm256_min_ps(v, hi), lo));
    }
    __m256i words0 = _mm256_packs_epi32(q[0], q[1]), words1 = _mm256_packs_epi32(q[2], q[3]);
    __m256i bytes = std::is_signed_v<Q> ? _mm256_packs_epi16(words0, words1) : _mm256_packus_epi16(words0, words1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_permutevar8x32_epi32(bytes, order));
  }
  return i;
}
#endif

// One channel's run. Restrict pointers as arguments (not captured by reference) let the loops vectorise.
template <typename Q, bool Fused>
void quantize_run(const float* __restrict in, Q* __restrict out, int64_t n, float inv_scale, float zero_point) {
  int64_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (Fused && sizeof(Q) == 1) i = quantize_fused_avx2(in, out, n, inv_scale, zero_point);
#endif
  for (; i < n; ++i) out[i] = quantize_one<Q, Fused>(in[i], inv_scale, zero_point);
}

template <typename Q>
void dequantize_run(const Q* __restrict in, float* __restrict out, int64_t n, double scale, float zero_point,
                    bool per_channel) {
  if (per_channel) {
    for (int64_t i = 0; i < n; ++i) out[i] = float(double(float(in[i]) - zero_point) * scale);
    return;
  }
  float s = float(scale);
  for (int64_t i = 0; i < n; ++i) out[i] = (float(in[i]) - zero_point) * s;
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
      if (fused) quantize_run<Q, true>(in + first, out + first, last - first, inv_scale, zp);
      else quantize_run<Q, false>(in + first, out + first, last - first, inv_scale, zp);
    });
  });
}

void dequantize_kernel(const Tensor& dst, const Tensor& src, const kernels::AffineParams& params) {
  float* out = dst.data_ptr<float>();
  visit_raw(src.dtype(), [&]<typename Q>(Q) {
    const Q* in = src.data_ptr<Q>();
    for_each_run(dst.numel(), params, [&](int64_t first, int64_t last, double scale, int64_t zero_point) {
      dequantize_run<Q>(in + first, out + first, last - first, scale, float(zero_point), params.per_channel);
    });
  });
}

}  // namespace ember::cpu

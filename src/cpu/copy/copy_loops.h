// The loops of the strided copy with dtype conversion (copy_kernel.h), for the files that instantiate them:
// one per family of destination dtypes, so each compiles fast.
#pragma once
#include <algorithm>
#include <cstring>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "../strided_loop.h"
#include "ember/tensor.h"

namespace ember::cpu {

// float <-> float16 through the F16C instructions, 8 elements a step (round to nearest even, as the scalar
// conversion; a NaN keeps its payload's top bits, as torch's vectorised copy); returns how many it converted.
inline int64_t convert_f16c(Half* d, const float* s, int64_t n) {
  int64_t i = 0;
#ifdef __F16C__
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), h);
  }
#endif
  return i;
}
inline int64_t convert_f16c(float* d, const Half* s, int64_t n) {
  int64_t i = 0;
#ifdef __F16C__
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i))));
  }
#endif
  return i;
}

template <typename D, typename S>
void convert_row(char* dst, const char* src, int64_t n, int64_t ds, int64_t ss) {
  if (ds == sizeof(D) && ss == sizeof(S)) {  // contiguous: let the compiler vectorise
    auto* d = reinterpret_cast<D*>(dst);
    auto* s = reinterpret_cast<const S*>(src);
    if constexpr (std::is_same_v<D, S>) {
      std::memcpy(d, s, size_t(n) * sizeof(D));
    } else {
      int64_t i = 0;
      constexpr bool f16c = (std::is_same_v<D, Half> && std::is_same_v<S, float>) ||
                            (std::is_same_v<D, float> && std::is_same_v<S, Half>);
      if constexpr (f16c) i = convert_f16c(d, s, n);
      for (; i < n; ++i) d[i] = convert<D>(s[i]);
    }
    return;
  }
  if (ss == 0) {  // broadcast source (fill)
    D v = convert<D>(*reinterpret_cast<const S*>(src));
    if (ds == sizeof(D)) {  // contiguous: a loop the compiler vectorises (a runtime stride keeps it scalar)
      std::fill_n(reinterpret_cast<D*>(dst), n, v);
      return;
    }
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<D*>(dst + i * ds) = v;
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<D*>(dst + i * ds) = convert<D>(*reinterpret_cast<const S*>(src + i * ss));
  }
}

#ifdef __AVX2__
// dst[c * dst_stride + r] = src[r * src_stride + c] for an 8x8 block of 4-byte elements.
inline void transpose_8x8(const char* src, int64_t src_stride, char* dst, int64_t dst_stride) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + i * src_stride));
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
    t[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
  }
  for (int i = 0; i < 8; ++i) _mm256_storeu_ps(reinterpret_cast<float*>(dst + i * dst_stride), t[i]);
}
#endif

// Copies in square tiles when the two inner dims are transposed between dst and src,
// so both sides are read and written in cache-line-sized runs.
template <typename D, typename S>
bool try_transposed_copy(const StridedPlan<2>& plan) {
  if (plan.ndim() != 2) return false;
  int64_t n0 = plan.sizes[0], n1 = plan.sizes[1];
  int64_t d0 = plan.strides[0][0], d1 = plan.strides[0][1];
  int64_t s0 = plan.strides[1][0], s1 = plan.strides[1][1];
  if (!(s1 < s0 && s1 == int64_t(sizeof(S)) && d0 == int64_t(sizeof(D)))) return false;
  if (n0 < 16 || n1 < 16) return false;
  constexpr int64_t T = 32;
  int64_t tiles0 = (n0 + T - 1) / T, tiles1 = (n1 + T - 1) / T;
  parallel_for(0, tiles0 * tiles1, 16, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t i0 = (t % tiles0) * T, i1 = (t / tiles0) * T;
      int64_t e0 = std::min(n0, i0 + T), e1 = std::min(n1, i1 + T);
#ifdef __AVX2__
      if constexpr (std::is_same_v<D, S> && sizeof(D) == 4) {  // whole 8x8 blocks in registers
        if (e0 - i0 == T && e1 - i1 == T) {
          for (int64_t i = i0; i < e0; i += 8) {
            for (int64_t j = i1; j < e1; j += 8) {
              transpose_8x8(plan.base[1] + i * s0 + j * s1, s0, plan.base[0] + i * d0 + j * d1, d1);
            }
          }
          continue;
        }
      }
#endif
      for (int64_t i = i0; i < e0; ++i) {
        char* dst = plan.base[0] + i * d0 + i1 * d1;
        const char* src = plan.base[1] + i * s0 + i1 * s1;
        for (int64_t j = 0; j < e1 - i1; ++j) {
          *reinterpret_cast<D*>(dst + j * d1) = convert<D>(*reinterpret_cast<const S*>(src + j * s1));
        }
      }
    }
  });
  return true;
}

template <typename D, typename S>
void run_copy(const StridedPlan<2>& plan) {
  if (try_transposed_copy<D, S>(plan)) return;
  parallel_rows(plan, kParallelGrain, [](const std::array<char*, 2>& p, int64_t n, const std::array<int64_t, 2>& st) {
    convert_row<D, S>(p[0], p[1], n, st[0], st[1]);
  });
}

// The copy of `plan` (dst, src) into a destination of an integral (bool included) or a floating dtype.
void copy_into_integers(const StridedPlan<2>& plan, ScalarType dst, ScalarType src);
void copy_into_floats(const StridedPlan<2>& plan, ScalarType dst, ScalarType src);

}  // namespace ember::cpu

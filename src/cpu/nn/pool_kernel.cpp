// Pooling kernels (kernels::max_pool, avg_pool and their backwards) over contiguous (P, H, W) planes, parallel over
// planes with Ember's pool. The windows come precomputed per axis (PoolAxis), so one loop serves plain and adaptive
// pooling. Measured faster than oneDNN's pooling for NCHW tensors (no reorder to a blocked layout).
#include <immintrin.h>

#include <cmath>
#include <limits>
#include <vector>

#include "../../dispatch/kernels.h"
#include "../compute_type.h"
#include "ember/parallel.h"
#include "pool_kernel.h"

namespace ember::cpu {

namespace {

// Planes per parallel chunk: about 32K window taps of work.
int64_t plane_grain(const PoolAxis& h, const PoolAxis& w) {
  int64_t taps = int64_t(h.start.size() * w.start.size()) * (h.count.empty() ? 1 : h.count[0] * w.count[0]);
  return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, taps));
}

template <typename T>
using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, Compute<T>>;

// Max pooling's starting value: below every element (NaN is taken separately).
template <typename T>
Compute<T> lowest() {
  return std::is_integral_v<T> ? Compute<T>(std::numeric_limits<T>::lowest()) : Compute<T>(-INFINITY);
}

// The stride of an axis whose windows all hold the same taps count and start a constant stride apart (unclipped
// windows: the common case), else 0.
int64_t regular_stride(const PoolAxis& a) {
  const size_t n = a.start.size();
  const int64_t s = n > 1 ? a.start[1] - a.start[0] : 1;
  for (size_t i = 0; i < n; ++i) {
    if (a.count[i] != a.count[0] || a.start[i] != a.start[0] + int64_t(i) * s) return 0;
  }
  return s > 0 ? s : 0;
}

// Max pooling of one output row over a regular w axis, tap by tap across the row so the loop over outputs
// vectorises (S: the stride when known at compile time, else 0 and `ws`). best: OW scratch values.
template <typename T, bool kIndices, int64_t S>
void max_row_regular(const T* plane, int64_t W, const PoolAxis& h, int64_t oh, const PoolAxis& w, int64_t ws,
                     T* __restrict out, int64_t* __restrict idx, Compute<T>* __restrict best) {
  using C = Compute<T>;
  const int64_t OW = int64_t(w.start.size()), stride = S ? S : ws, h0 = h.start[oh], hn = h.count[oh];
  const int64_t w0 = w.start[0], wn = w.count[0], hstep = h.step, wstep = w.step;
  for (int64_t ow = 0; ow < OW; ++ow) best[ow] = lowest<T>();
  if constexpr (kIndices) {
    for (int64_t ow = 0; ow < OW; ++ow) idx[ow] = h0 * W + w0 + ow * stride;
  }
  for (int64_t i = 0; i < hn; ++i) {
    for (int64_t j = 0; j < wn; ++j) {
      const int64_t base = (h0 + i * hstep) * W + w0 + j * wstep;
      const T* __restrict src = plane + base;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const C v = C(src[ow * stride]);
        const bool take = v > best[ow] || is_nan(v);  // torch's rule: the last NaN wins
        best[ow] = take ? v : best[ow];
        if constexpr (kIndices) idx[ow] = take ? base + ow * stride : idx[ow];
      }
    }
  }
  for (int64_t ow = 0; ow < OW; ++ow) out[ow] = T(best[ow]);
}

// The same for any windows (clipped at the edges, adaptive), window by window.
template <typename T, bool kIndices>
void max_row(const T* plane, int64_t W, const PoolAxis& h, int64_t oh, const PoolAxis& w, T* out, int64_t* idx) {
  using C = Compute<T>;
  const int64_t h0 = h.start[oh], hn = h.count[oh], OW = int64_t(w.start.size());
  for (int64_t ow = 0; ow < OW; ++ow) {
    const int64_t w0 = w.start[ow], wn = w.count[ow];
    C best = lowest<T>();
    int64_t best_at = h0 * W + w0;
    for (int64_t i = 0; i < hn; ++i) {
      const int64_t base = (h0 + i * h.step) * W;
      for (int64_t j = 0; j < wn; ++j) {
        const int64_t at = base + w0 + j * w.step;
        const C v = C(plane[at]);
        const bool take = v > best || is_nan(v);
        best = take ? v : best;
        if constexpr (kIndices) best_at = take ? at : best_at;
      }
    }
    out[ow] = T(best);
    if constexpr (kIndices) idx[ow] = best_at;
  }
}

// Whether an axis pools disjoint pairs from the start (the seed CNN's 2x2, stride 2, unpadded pooling).
bool pairs(const PoolAxis& a) { return regular_stride(a) == 2 && a.step == 1 && a.start[0] == 0 && a.count[0] == 2; }

// 2x2 pooling of one output row from input rows r0 and r1 (row oh of its plane), taps in torch's order.
template <typename T, bool kIndices>
void max_pair_row(const T* __restrict r0, const T* __restrict r1, int64_t W, int64_t oh, int64_t OW, T* __restrict o,
                  int64_t* __restrict id) {
  using C = Compute<T>;
  for (int64_t ow = 0; ow < OW; ++ow) {
    const int64_t base = 2 * oh * W + 2 * ow;
    C best = C(r0[2 * ow]);
    int64_t at = base;
    auto tap = [&](C v, int64_t where) {  // selects, not branches (random data mispredicts them)
      const bool greater = v > best, nan = is_nan(v);
      const int64_t keep = int64_t(greater | nan) - 1;  // all ones where the tap is not taken
      if constexpr (kIndices) at = (where & ~keep) | (at & keep);
      best = greater ? v : best;
      if (nan) [[unlikely]] best = v;
    };
    tap(C(r0[2 * ow + 1]), base + 1);
    tap(C(r1[2 * ow]), base + W);
    tap(C(r1[2 * ow + 1]), base + W + 1);
    o[ow] = T(best);
    if constexpr (kIndices) id[ow] = at;
  }
}

#ifdef __AVX2__
// 2x2 pooling of 8 float planes at once, one window per lane (gathers at the planes' offsets), for planes under 7
// windows wide: the scalar selects below took ~20 cycles a window. Measured (batch 128, 1 thread, with indices):
// the main job's 64x7x7 pool 0.46 ms, now 0.28; at 32x14x14 a tie, at 16x28x28 slower (1.3 ms against 0.98).
// The same taps and rule (greater, or NaN) as max_pair_row.
template <bool kIndices>
void max_pair_planes8(const float* in, float* out, int64_t* idx, int64_t H, int64_t W, int64_t OH, int64_t OW) {
  const int32_t HW = int32_t(H * W);
  const __m256i planes = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(HW));
  const int32_t offsets[4] = {0, 1, int32_t(W), int32_t(W) + 1};
  alignas(32) float best_lanes[8];
  alignas(32) int32_t tap_lanes[8];
  for (int64_t oh = 0; oh < OH; ++oh) {
    for (int64_t ow = 0; ow < OW; ++ow) {
      const int32_t base = int32_t(2 * oh * W + 2 * ow);
      __m256 best = _mm256_i32gather_ps(in, _mm256_add_epi32(planes, _mm256_set1_epi32(base)), 4);
      __m256 tap = _mm256_setzero_ps();
      for (int k = 1; k < 4; ++k) {
        __m256 v = _mm256_i32gather_ps(in, _mm256_add_epi32(planes, _mm256_set1_epi32(base + offsets[k])), 4);
        __m256 take = _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        best = _mm256_blendv_ps(best, v, take);
        tap = _mm256_blendv_ps(tap, _mm256_castsi256_ps(_mm256_set1_epi32(k)), take);
      }
      _mm256_store_ps(best_lanes, best);
      _mm256_store_si256(reinterpret_cast<__m256i*>(tap_lanes), _mm256_castps_si256(tap));
      const int64_t o = oh * OW + ow;
      for (int l = 0; l < 8; ++l) {
        out[l * OH * OW + o] = best_lanes[l];
        if constexpr (kIndices) idx[l * OH * OW + o] = base + offsets[tap_lanes[l]];
      }
    }
  }
}
#endif

// 2x2 pooling over every output row of planes [p0, p1), plane by plane. Rows too short for the vector loop (the
// main job's 14- and 7-wide planes) run its taps as scalar selects: as branches, random data mispredicted them
// (measured on 128x128x7x7 floats, 1 thread: 2.5 ms, now 0.43; with indices 2.2 ms, now 0.9).
template <typename T, bool kIndices>
void max_pool_pairs(const T* in, T* out, int64_t* idx, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t p0,
                    int64_t p1) {
#ifdef __AVX2__
  if constexpr (std::is_same_v<T, float>) {
    for (; OW < 7 && p0 + 8 <= p1 && 8 * H * W < (int64_t(1) << 31); p0 += 8) {
      max_pair_planes8<kIndices>(in + p0 * H * W, out + p0 * OH * OW, kIndices ? idx + p0 * OH * OW : nullptr, H, W,
                                 OH, OW);
    }
  }
#endif
  for (int64_t p = p0; p < p1; ++p) {
    const T* plane = in + p * H * W;
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t o = (p * OH + oh) * OW;
      max_pair_row<T, kIndices>(plane + 2 * oh * W, plane + (2 * oh + 1) * W, W, oh, OW, out + o,
                                kIndices ? idx + o : nullptr);
    }
  }
}

template <typename T, bool kIndices>
void max_pool_planes(const T* in, T* out, int64_t* idx, int64_t H, int64_t W, int64_t OH, const PoolAxis& h,
                     const PoolAxis& w, int64_t p0, int64_t p1) {
  const int64_t OW = int64_t(w.start.size()), ws = regular_stride(w);
  std::vector<Compute<T>> best(size_t(ws ? OW : 0));
  for (int64_t p = p0; p < p1; ++p) {
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t o = (p * OH + oh) * OW;
      const T* plane = in + p * H * W;
      int64_t* row_idx = kIndices ? idx + o : nullptr;
      if (ws == 2) max_row_regular<T, kIndices, 2>(plane, W, h, oh, w, ws, out + o, row_idx, best.data());
      else if (ws == 1) max_row_regular<T, kIndices, 1>(plane, W, h, oh, w, ws, out + o, row_idx, best.data());
      else if (ws) max_row_regular<T, kIndices, 0>(plane, W, h, oh, w, ws, out + o, row_idx, best.data());
      else max_row<T, kIndices>(plane, W, h, oh, w, out + o, row_idx);
    }
  }
}

template <typename T>
void max_pool_typed(const Tensor& input, const Tensor& output, const Tensor& indices, const PoolAxis& h,
                    const PoolAxis& w) {
  const int64_t H = input.size(1), W = input.size(2), OH = output.size(1);
  const T* in = input.data_ptr<T>();
  T* out = output.data_ptr<T>();
  int64_t* idx = indices.defined() ? indices.data_ptr<int64_t>() : nullptr;
  parallel_for(0, input.size(0), plane_grain(h, w), [&](int64_t p0, int64_t p1) {
    const int64_t OW = int64_t(w.start.size());
    if (pairs(h) && pairs(w)) {
      if (idx) max_pool_pairs<T, true>(in, out, idx, H, W, OH, OW, p0, p1);
      else max_pool_pairs<T, false>(in, out, idx, H, W, OH, OW, p0, p1);
    } else if (idx) {
      max_pool_planes<T, true>(in, out, idx, H, W, OH, h, w, p0, p1);
    } else {
      max_pool_planes<T, false>(in, out, idx, H, W, OH, h, w, p0, p1);
    }
  });
}

int64_t divisor_at(const PoolAxis& h, const PoolAxis& w, int64_t oh, int64_t ow, int64_t divisor) {
  return divisor ? divisor : h.span[oh] * w.span[ow];
}

template <typename T>
void avg_pool_typed(const Tensor& input, const Tensor& output, const PoolAxis& h, const PoolAxis& w,
                    int64_t divisor) {
  const int64_t H = input.size(1), W = input.size(2), OH = output.size(1), OW = output.size(2);
  const T* in = input.data_ptr<T>();
  T* out = output.data_ptr<T>();
  parallel_for(0, input.size(0), plane_grain(h, w), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* plane = in + p * H * W;
      for (int64_t oh = 0; oh < OH; ++oh) {
        for (int64_t ow = 0; ow < OW; ++ow) {
          Acc<T> sum = 0;
          if (h.count[oh] == 0 || w.count[ow] == 0) {  // a window in the padding alone
            out[(p * OH + oh) * OW + ow] = T(0);
            continue;
          }
          for (int64_t ih = h.start[oh]; ih < h.start[oh] + h.count[oh]; ++ih) {
            const T* row = plane + ih * W + w.start[ow];
            for (int64_t j = 0; j < w.count[ow]; ++j) sum += Acc<T>(row[j]);
          }
          out[(p * OH + oh) * OW + ow] = T(sum / Acc<T>(divisor_at(h, w, oh, ow, divisor)));
        }
      }
    }
  });
}

template <typename T>
void max_pool_backward_typed(const Tensor& grad_output, const Tensor& indices, const Tensor& grad_input) {
  const int64_t HW = grad_input.size(1) * grad_input.size(2), O = grad_output.size(1) * grad_output.size(2);
  const T* g = grad_output.data_ptr<T>();
  const int64_t* idx = indices.data_ptr<int64_t>();
  T* gi = grad_input.data_ptr<T>();
  parallel_for(0, grad_input.size(0), std::max<int64_t>(1, 32768 / std::max<int64_t>(1, HW)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* plane = gi + p * HW;
      std::fill(plane, plane + HW, T(0));  // plane by plane: the scatter then writes into cache (the main job's step)
      for (int64_t o = p * O; o < (p + 1) * O; ++o) {
        if (idx[o] >= 0 && idx[o] < HW) plane[idx[o]] = T(Compute<T>(plane[idx[o]]) + Compute<T>(g[o]));
      }
    }
  });
}

template <typename T>
void avg_pool_backward_typed(const Tensor& grad_output, const Tensor& grad_input, const PoolAxis& h, const PoolAxis& w,
                             int64_t divisor) {
  const int64_t H = grad_input.size(1), W = grad_input.size(2), OH = grad_output.size(1), OW = grad_output.size(2);
  const T* g = grad_output.data_ptr<T>();
  T* gi = grad_input.data_ptr<T>();
  parallel_for(0, grad_input.size(0), plane_grain(h, w), [&](int64_t p0, int64_t p1) {
    std::fill(gi + p0 * H * W, gi + p1 * H * W, T(0));
    for (int64_t p = p0; p < p1; ++p) {
      T* plane = gi + p * H * W;
      for (int64_t oh = 0; oh < OH; ++oh) {
        for (int64_t ow = 0; ow < OW; ++ow) {
          if (h.count[oh] == 0 || w.count[ow] == 0) continue;
          Acc<T> share = Acc<T>(g[(p * OH + oh) * OW + ow]) / Acc<T>(divisor_at(h, w, oh, ow, divisor));
          for (int64_t ih = h.start[oh]; ih < h.start[oh] + h.count[oh]; ++ih) {
            T* row = plane + ih * W + w.start[ow];
            for (int64_t j = 0; j < w.count[ow]; ++j) row[j] = T(Acc<T>(row[j]) + share);
          }
        }
      }
    }
  });
}

// The dtypes pooling computes in: every number type but bool and the float8s (the op layer checks).
template <typename Fn>
void visit_pool_dtype(ScalarType t, Fn&& fn) {
  visit_dtype(t, [&]<typename T>(T) {
    if constexpr (!std::is_same_v<T, bool> && !is_float8<T>) fn(T{});
  });
}

}  // namespace

void max_pool_kernel(const Tensor& input, const Tensor& output, const Tensor& indices, const PoolAxis& h,
                     const PoolAxis& w) {
  visit_pool_dtype(input.dtype(), [&]<typename T>(T) { max_pool_typed<T>(input, output, indices, h, w); });
}

void avg_pool_kernel(const Tensor& input, const Tensor& output, const PoolAxis& h, const PoolAxis& w, int64_t divisor) {
  visit_pool_dtype(input.dtype(), [&]<typename T>(T) { avg_pool_typed<T>(input, output, h, w, divisor); });
}

void max_pool_backward_kernel(const Tensor& grad_output, const Tensor& indices, const Tensor& grad_input) {
  visit_pool_dtype(grad_input.dtype(),
                   [&]<typename T>(T) { max_pool_backward_typed<T>(grad_output, indices, grad_input); });
}

void avg_pool_backward_kernel(const Tensor& grad_output, const Tensor& grad_input, const PoolAxis& h,
                              const PoolAxis& w, int64_t divisor) {
  visit_pool_dtype(grad_input.dtype(),
                   [&]<typename T>(T) { avg_pool_backward_typed<T>(grad_output, grad_input, h, w, divisor); });
}

}  // namespace ember::cpu

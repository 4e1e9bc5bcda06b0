// The extreme elements of a contiguous row, vectorised (shared by the softmax, loss and arg-extremum kernels).
#pragma once
#include <cstdint>
#include <cstring>

#include "compute_type.h"

namespace ember::cpu {

// The row's maximum (kMax) or minimum: four vector accumulators (a scalar compare chain is latency-bound). NaNs
// are skipped here; they still reach the output through exp.
template <typename C, bool kMax = true>
inline C row_extreme(const C* x, int64_t n) {
  using V = typename Vec32<C>::type;
  constexpr int64_t W = sizeof(V) / sizeof(C);
  auto better = [](auto a, auto b) { return kMax ? a > b : a < b; };
  C m = x[0];
  int64_t i = 0;
  if (n >= 4 * W) {
    V acc[4];
    for (auto& a : acc) a = m - V{};
    for (; i + 4 * W <= n; i += 4 * W) {
      for (int k = 0; k < 4; ++k) {
        V v;
        std::memcpy(&v, x + i + k * W, sizeof(V));
        acc[k] = better(v, acc[k]) ? v : acc[k];
      }
    }
    for (int k = 1; k < 4; ++k) acc[0] = better(acc[k], acc[0]) ? acc[k] : acc[0];
    for (int64_t l = 0; l < W; ++l) m = better(acc[0][l], m) ? acc[0][l] : m;
  }
  for (; i < n; ++i) m = better(x[i], m) ? x[i] : m;
  return m;
}

template <typename C>
inline C row_max(const C* x, int64_t n) {
  return row_extreme<C, true>(x, n);
}

// The first index from `from` on where hit(x[i]) holds, else n. hit takes a value or a vector of them (GCC's vector
// extensions: a comparison gives a lane mask), so blocks of 4 vectors are tested at once (GCC does not vectorise a
// loop that can leave early) and the hit's block is then scanned.
template <typename C, typename Hit>
inline int64_t find_first(const C* x, int64_t from, int64_t n, Hit hit) {
  using V = typename Vec32<C>::type;
  constexpr int64_t W = sizeof(V) / sizeof(C);
  int64_t i = from;
  for (; i + 4 * W <= n; i += 4 * W) {
    V v[4];
    std::memcpy(v, x + i, sizeof(v));
    auto mask = hit(v[0]) | hit(v[1]) | hit(v[2]) | hit(v[3]);
    bool any = false;
    for (int64_t l = 0; l < W; ++l) any |= mask[l] != 0;
    if (any) break;
  }
  for (; i < n; ++i) {
    if (hit(x[i])) return i;
  }
  return n;
}

}  // namespace ember::cpu

// The largest element of a contiguous row, vectorised (shared by the softmax and loss kernels).
#pragma once
#include <cstdint>
#include <cstring>

#include "compute_type.h"

namespace ember::cpu {

// The row's maximum: four vector accumulators (a scalar compare chain is latency-bound). NaNs
// are skipped here; they still reach the output through exp.
template <typename C>
inline C row_max(const C* x, int64_t n) {
  using V = typename Vec32<C>::type;
  constexpr int64_t W = sizeof(V) / sizeof(C);
  C m = x[0];
  int64_t i = 0;
  if (n >= 4 * W) {
    V acc[4];
    for (auto& a : acc) a = m - V{};
    for (; i + 4 * W <= n; i += 4 * W) {
      for (int k = 0; k < 4; ++k) {
        V v;
        std::memcpy(&v, x + i + k * W, sizeof(V));
        acc[k] = v > acc[k] ? v : acc[k];
      }
    }
    for (int k = 1; k < 4; ++k) acc[0] = acc[k] > acc[0] ? acc[k] : acc[0];
    for (int64_t l = 0; l < W; ++l) m = acc[0][l] > m ? acc[0][l] : m;
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

}  // namespace ember::cpu

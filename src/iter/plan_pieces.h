// A plan cut into pieces a narrow-index kernel can run: the GPU's strided kernels index in 32 bits, and a larger
// plan runs as several launches (as torch's with_32bit_indexing) instead of a second, 64-bit copy of every kernel.
#pragma once
#include <cstdint>
#include <cstdlib>

#include "strided_plan.h"

namespace ember {

// Calls fn(piece) on pieces that together cover `plan` once, each with fits(piece) true: the dim reaching the most
// bytes is halved until every piece fits (a piece of single elements always fits).
template <int N, typename Fits, typename Fn>
void for_each_piece(const StridedPlan<N>& plan, const Fits& fits, const Fn& fn) {
  if (plan.numel == 0) return;
  if (fits(plan)) return fn(plan);
  int64_t dim = -1, widest = -1;
  for (int64_t d = 0; d < plan.ndim(); ++d) {
    if (plan.sizes[d] < 2) continue;
    for (int k = 0; k < N; ++k) {
      int64_t reach = (plan.sizes[d] - 1) * std::llabs(plan.strides[k][d]);
      if (reach > widest) widest = reach, dim = d;
    }
  }
  if (dim < 0) return fn(plan);  // one element
  StridedPlan<N> low = plan, high = plan;
  int64_t half = plan.sizes[dim] / 2, rest = plan.numel / plan.sizes[dim];
  low.sizes[dim] = half;
  low.numel = rest * half;
  high.sizes[dim] -= half;
  high.numel = rest * high.sizes[dim];
  for (int k = 0; k < N; ++k) high.base[k] += half * plan.strides[k][dim];
  for_each_piece(low, fits, fn);
  for_each_piece(high, fits, fn);
}

}  // namespace ember

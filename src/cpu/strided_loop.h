// Runs a StridedPlan on the CPU: row by row, split across Ember's thread pool.
#pragma once
#include <algorithm>
#include <array>

#include "../iter/strided_plan.h"
#include "ember/parallel.h"

namespace ember::cpu {

// Calls fn(ptrs, n, inner_strides) for rows [row_begin, row_end) of the plan.
template <int N, typename Fn>
void for_each_row(const StridedPlan<N>& plan, int64_t row_begin, int64_t row_end, Fn&& fn) {
  int64_t nd = plan.ndim();
  DimVector index(size_t(std::max<int64_t>(nd, 1)), 0);
  // Position of row_begin in the outer dims (1..nd-1).
  int64_t r = row_begin;
  std::array<char*, N> ptrs = plan.base;
  for (int64_t d = 1; d < nd; ++d) {
    index[d] = r % plan.sizes[d];
    r /= plan.sizes[d];
    for (int k = 0; k < N; ++k) ptrs[k] += index[d] * plan.strides[k][d];
  }
  std::array<int64_t, N> inner;
  for (int k = 0; k < N; ++k) inner[k] = plan.strides[k][0];
  for (int64_t row = row_begin; row < row_end; ++row) {
    fn(ptrs, plan.sizes[0], inner);
    for (int64_t d = 1; d < nd; ++d) {  // odometer step
      for (int k = 0; k < N; ++k) ptrs[k] += plan.strides[k][d];
      if (++index[d] < plan.sizes[d]) break;
      for (int k = 0; k < N; ++k) ptrs[k] -= plan.strides[k][d] * plan.sizes[d];
      index[d] = 0;
    }
  }
}

// Runs the plan's rows in parallel when there is enough work (grain counts elements).
template <int N, typename Fn>
void parallel_rows(const StridedPlan<N>& plan, int64_t grain_elements, Fn&& fn) {
  int64_t rows = plan.rows();
  if (rows == 1) {  // one long row: split it instead
    parallel_for(0, plan.inner_size(), grain_elements, [&](int64_t b, int64_t e) {
      std::array<char*, N> ptrs = plan.base;
      std::array<int64_t, N> inner;
      for (int k = 0; k < N; ++k) {
        inner[k] = plan.strides[k][0];
        ptrs[k] += b * inner[k];
      }
      fn(ptrs, e - b, inner);
    });
    return;
  }
  int64_t grain_rows = std::max<int64_t>(1, grain_elements / std::max<int64_t>(plan.inner_size(), 1));
  parallel_for(0, rows, grain_rows, [&](int64_t b, int64_t e) { for_each_row(plan, b, e, fn); });
}

inline constexpr int64_t kParallelGrain = 32768;

}  // namespace ember::cpu

// A pass over N same-shaped strided operands (operand 0 is the output), planned once:
// dims are ordered innermost-first by the output's strides and coalesced where possible,
// so kernels see the longest possible inner loop. Strides are in bytes.
#pragma once
#include <algorithm>
#include <array>
#include <numeric>

#include "ember/dim_vector.h"
#include "ember/parallel.h"

namespace ember::cpu {

template <int N>
struct StridedPlan {
  DimVector sizes;                    // innermost first
  std::array<DimVector, N> strides;   // bytes, same order as sizes
  std::array<char*, N> base;
  int64_t numel = 1;

  int64_t ndim() const { return int64_t(sizes.size()); }
  int64_t inner_size() const { return sizes.empty() ? 1 : sizes[0]; }
  int64_t rows() const { return numel == 0 ? 0 : numel / inner_size(); }
};

// sizes: the common shape; strides[k]: operand k's strides in elements; itemsize[k]: bytes.
template <int N>
StridedPlan<N> make_plan(IntArrayRef sizes, const std::array<IntArrayRef, N>& strides,
                         const std::array<int64_t, N>& itemsize, const std::array<char*, N>& base) {
  StridedPlan<N> plan;
  plan.base = base;
  // Dims sorted so the output's smallest stride comes first (ties: later dim first).
  DimVector order;
  for (size_t d = 0; d < sizes.size(); ++d) {
    plan.numel *= sizes[d];
    if (sizes[d] != 1) order.push_back(int64_t(d));
  }
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    for (int k = 0; k < N; ++k) {
      if (strides[k][a] != strides[k][b]) return strides[k][a] < strides[k][b];
    }
    return a > b;
  });
  for (int64_t d : order) {
    int64_t last = plan.ndim() - 1;
    bool can_merge = last >= 0;
    for (int k = 0; k < N && can_merge; ++k) {
      can_merge = strides[k][d] * itemsize[k] == plan.strides[k][last] * plan.sizes[last];
    }
    if (can_merge) {
      plan.sizes[last] *= sizes[d];
      continue;
    }
    plan.sizes.push_back(sizes[d]);
    for (int k = 0; k < N; ++k) plan.strides[k].push_back(strides[k][d] * itemsize[k]);
  }
  if (plan.sizes.empty()) {
    plan.sizes.push_back(1);
    for (int k = 0; k < N; ++k) plan.strides[k].push_back(0);
  }
  return plan;
}

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

// A pass over N same-shaped strided operands (operand 0 is the output), planned once:
// dims are ordered innermost-first by the output's strides and coalesced where possible,
// so kernels see the longest possible inner loop. Strides are in bytes. Device-neutral: each
// backend runs the plan its own way (src/cpu/strided_loop.h on CPU).
#pragma once
#include <algorithm>
#include <array>

#include "ember/dim_vector.h"

namespace ember {

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

// Whether a block of `sizes` with element `strides` is one contiguous run (size-1 dims ignored).
inline bool is_contiguous_run(IntArrayRef sizes, IntArrayRef strides) {
  int64_t expected = 1;
  for (size_t k = sizes.size(); k-- > 0;) {
    if (sizes[k] == 1) continue;
    if (strides[k] != expected) return false;
    expected *= sizes[k];
  }
  return true;
}

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

// Built once at -O3 in strided_plan.cpp: the GPU plugin's launch glue, whose host side compiles at -O1, calls these.
#define EMBER_MAKE_PLAN(N)                                                               \
  template StridedPlan<N> make_plan<N>(IntArrayRef, const std::array<IntArrayRef, N>&, \
                                       const std::array<int64_t, N>&, const std::array<char*, N>&)
extern EMBER_MAKE_PLAN(1);
extern EMBER_MAKE_PLAN(2);
extern EMBER_MAKE_PLAN(3);
extern EMBER_MAKE_PLAN(4);

}  // namespace ember

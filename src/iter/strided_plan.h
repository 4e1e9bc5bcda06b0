// A pass over N same-shaped strided operands (operand 0 is the output), planned once:
// dims are ordered innermost-first by the output's strides and coalesced where possible,
// so kernels see the longest possible inner loop. Strides are in bytes. Device-neutral: each
// backend runs the plan its own way (src/cpu/strided_loop.h on CPU).
#pragma once
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

// sizes: the common shape; strides[k]: operand k's strides in elements; itemsize[k]: bytes. Built for one to four
// operands, once, at -O3 (strided_plan.cpp): the GPU plugin's launch glue, whose host side compiles at -O1, calls it.
template <int N>
StridedPlan<N> make_plan(IntArrayRef sizes, const std::array<IntArrayRef, N>& strides,
                         const std::array<int64_t, N>& itemsize, const std::array<char*, N>& base);

}  // namespace ember

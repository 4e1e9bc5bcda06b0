// The plans of one to four operands (strided_plan.h), instantiated once; kept out of the header so the units that
// run plans (the GPU's above all) need not parse <algorithm>.
#include "strided_plan.h"

#include <algorithm>

namespace ember {

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

#define EMBER_MAKE_PLAN(N)                                                               \
  template StridedPlan<N> make_plan<N>(IntArrayRef, const std::array<IntArrayRef, N>&, \
                                       const std::array<int64_t, N>&, const std::array<char*, N>&)
EMBER_MAKE_PLAN(1);
EMBER_MAKE_PLAN(2);
EMBER_MAKE_PLAN(3);
EMBER_MAKE_PLAN(4);
#undef EMBER_MAKE_PLAN

}  // namespace ember

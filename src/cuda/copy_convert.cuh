// Copies between CUDA tensors of two dtypes, dst = convert<To>(src) as the CPU, built per destination family in
// two units as the CPU's (src/cpu/copy): into floating types in copy.cu, into bool and the integers in
// copy_integers.cu.
#pragma once
#include "elementwise.cuh"

namespace ember::cuda_backend {

template <typename To, typename From>
struct Convert {
  __device__ To operator()(From v) const { return convert<To>(v); }
};

// The plan's operand 0 (dtype `to`, integral or bool if Integral, else floating) = operand 1 (dtype `from`).
template <bool Integral>
void copy_convert(const StridedPlan<2>& plan, ScalarType to, ScalarType from) {
  visit_dtype(to, [&]<typename To>(To) {
    if constexpr (std::is_integral_v<To> == Integral) {
      visit_dtype(from, [&]<typename From>(From) {
        if constexpr (!std::is_same_v<To, From>) elementwise<To, From>(plan, Convert<To, From>{});
      });
    } else {
      throw Error("copy_convert: wrong destination dtype");
    }
  });
}
extern template void copy_convert<false>(const StridedPlan<2>&, ScalarType, ScalarType);
extern template void copy_convert<true>(const StridedPlan<2>&, ScalarType, ScalarType);

}  // namespace ember::cuda_backend

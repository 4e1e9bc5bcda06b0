// The functor of each FusedPointwise op, for the backends' kernels (src/cpu/fused_pointwise_kernel.cpp,
// src/cuda/fused_pointwise.cu).
#pragma once
#include "../functors/compute.h"
#include "../functors/pointwise.h"
#include "kernels.h"

namespace ember {

// Calls run.template operator()<T>(functor) with op's functor for the iterator's element type T, its number `value`
// converted to the compute type (checked, as torch's kernels: 1000 does not scale int8).
template <typename Run>
void visit_fused_pointwise(FusedPointwise op, ScalarType dtype, const Scalar& value, Run&& run) {
  visit_dtype(dtype, [&]<typename T>(T) {
    using C = functors::Compute<T>;
    if constexpr (std::is_same_v<T, bool> || functors::is_float8<T>) {
      throw Error(str("fused_pointwise: dtype ", dtype_info(dtype).name, " must be rejected first"));
    } else {
      switch (op) {
        case FusedPointwise::Lerp: if constexpr (!std::is_integral_v<C>) run.template operator()<T>(functors::Lerp{});
          return;
        case FusedPointwise::LerpScalar:
          if constexpr (!std::is_integral_v<C>) run.template operator()<T>(functors::LerpScalar<C>{value.to<C>()});
          return;
        case FusedPointwise::Addcmul: return run.template operator()<T>(functors::Addcmul<C>{value.to<C>()});
        case FusedPointwise::Addcdiv: return run.template operator()<T>(functors::Addcdiv<C>{value.to<C>()});
      }
    }
  });
}

}  // namespace ember

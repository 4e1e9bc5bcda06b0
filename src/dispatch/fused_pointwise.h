// The functor of each FusedPointwise op, for the backends' kernels (src/cpu/fused_pointwise_kernel.cpp,
// src/cuda/fused_pointwise.cu).
#pragma once
#include "../functors/compute.h"
#include "../functors/pointwise.h"
#include "kernels.h"

namespace ember {

// Calls run.template operator()<T>(functor) with op's functor for the iterator's element type T, its numbers
// converted to the compute type (checked, as torch's kernels: 1000 does not scale int8; nan_to_num's unchecked).
template <typename Run>
void visit_fused_pointwise(FusedPointwise op, ScalarType dtype, std::span<const Scalar> values, Run&& run) {
  visit_dtype(dtype, [&]<typename T>(T) {
    using C = functors::Compute<T>;
    if constexpr (std::is_same_v<T, bool> || functors::is_float8<T>) {
      throw Error(str("fused_pointwise: dtype ", dtype_info(dtype).name, " must be rejected first"));
    } else {
      auto number = [&](size_t k) { return values[k].to<C>(); };
      auto rounded = [&](size_t k) { return C(convert<T>(values[k].to_double())); };
      switch (op) {
        case FusedPointwise::Addcmul: return run.template operator()<T>(functors::Addcmul<C>{number(0)});
        case FusedPointwise::Addcdiv: return run.template operator()<T>(functors::Addcdiv<C>{number(0)});
        default: break;
      }
      if constexpr (!std::is_integral_v<C>) {  // the op layer gives the others no integers
        switch (op) {
          case FusedPointwise::Lerp: return run.template operator()<T>(functors::Lerp{});
          case FusedPointwise::LerpScalar: return run.template operator()<T>(functors::LerpScalar<C>{number(0)});
          case FusedPointwise::Clamp: return run.template operator()<T>(functors::Clamp<C>{number(0), number(1)});
          case FusedPointwise::NanToNum:
            return run.template operator()<T>(functors::NanToNum<C>{rounded(0), rounded(1), rounded(2)});
          default: break;
        }
      }
      throw Error("fused_pointwise: the op layer must reject this dtype first");
    }
  });
}

}  // namespace ember

// Runs one of the fused pointwise kernels (kernels::fused_pointwise) from the op layer.
#pragma once
#include <initializer_list>
#include <span>

#include "../dispatch/kernels.h"

namespace ember {

// One pass of a fused kernel over (out, inputs...): out undefined for a new result, or the in-place tensor.
inline Tensor run_fused(FusedPointwise op, const Tensor& out, std::span<const Tensor> inputs,
                        std::initializer_list<Scalar> values = {}) {
  TensorIterator it(out, inputs);
  kernels::fused_pointwise[it.device_type()](op, it, std::span(values.begin(), values.size()));
  return it.finish();
}

}  // namespace ember

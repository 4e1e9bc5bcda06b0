// The fused pointwise ops on the CPU (kernels::fused_pointwise).
#pragma once
#include "../dispatch/kernels.h"
#include "../iter/tensor_iterator.h"

namespace ember::cpu {

void fused_pointwise_kernel(FusedPointwise op, const TensorIterator& it, std::span<const Scalar> values);

}  // namespace ember::cpu

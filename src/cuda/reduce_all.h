// The CUDA one-pass whole-tensor reduction (reduce.cu), registered in kernels::reduce_all.
#pragma once
#include "../dispatch/reduce_all.h"

namespace ember::cuda_backend {
Tensor reduce_all_kernel(ReduceOp op, const Tensor& input, ScalarType dtype, double divisor);
}  // namespace ember::cuda_backend

// CPU pooling kernels (see kernels::max_pool and friends in src/dispatch/kernels.h).
#pragma once
#include "../../dispatch/kernels.h"

namespace ember::cpu {

void max_pool_kernel(const Tensor& input, const Tensor& output, const Tensor& indices, const PoolAxis& h,
                     const PoolAxis& w);
void avg_pool_kernel(const Tensor& input, const Tensor& output, const PoolAxis& h, const PoolAxis& w, int64_t divisor);
void max_pool_backward_kernel(const Tensor& grad_output, const Tensor& indices, const Tensor& grad_input);
void avg_pool_backward_kernel(const Tensor& grad_output, const Tensor& grad_input, const PoolAxis& h,
                              const PoolAxis& w, int64_t divisor);

}  // namespace ember::cpu

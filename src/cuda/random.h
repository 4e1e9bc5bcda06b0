// The CUDA random fill (random.cu), registered in kernels::random_fill.
#pragma once
#include "../dispatch/random_kernels.h"

namespace ember::cuda_backend {
void random_fill_kernel(const Tensor& dst, const RandomDraw& draw);
}  // namespace ember::cuda_backend

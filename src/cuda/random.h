// The CUDA random fill (random.cu), registered in kernels::random_fill.
#pragma once
#include <cuda_runtime.h>

#include "../dispatch/random_kernels.h"

namespace ember::cuda_backend {
void random_fill_kernel(const Tensor& dst, const RandomDraw& draw);
// Writes a graph replay's {seed, base offset} to `args` (device memory), queued on `stream`.
void write_philox_args(uint64_t* args, uint64_t seed, uint64_t offset, cudaStream_t stream);
}  // namespace ember::cuda_backend

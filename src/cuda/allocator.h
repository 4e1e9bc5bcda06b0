// The CUDA caching allocator: device memory comes from cudaMalloc once and is kept for reuse after a
// tensor frees it, with torch.cuda's statistics. All work runs on one stream per device, so a freed block
// is safe to hand out again at once: later kernels are ordered after the ones that used it.
#pragma once
#include <cstddef>

#include "ember/allocator.h"
#include "ember/cuda.h"

namespace ember::cuda_backend {

Allocator& cuda_allocator();
cuda::MemoryStats memory_stats(int device);
void reset_peak_memory_stats(int device);
void empty_cache();
void set_memory_fraction(double fraction, int device);

}  // namespace ember::cuda_backend

// The CUDA caching allocator: device memory comes from cudaMalloc once and is kept for reuse after a tensor
// frees it, with torch.cuda's statistics. A freed block goes back to allocations on the stream it was allocated
// on, where it is safe to hand out at once: later kernels on that stream are ordered after the ones that used it.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "ember/allocator.h"
#include "ember/cuda.h"
#include "ember/cuda_graph.h"

namespace ember::cuda_backend {

Allocator& cuda_allocator();
cuda::MemoryStats memory_stats(int device);
void reset_peak_memory_stats(int device);
void empty_cache();
// `block`: the context of a DataPtr from this allocator.
void record_stream(void* block, cudaStream_t stream);
void set_memory_fraction(double fraction, int device);
// Graph captures (graph.cpp): allocations on streams in capture `capture_id` come from `pool` until its end; a
// graph that no longer uses its pool releases it.
void begin_pool_capture(int device, cuda::MempoolId pool, unsigned long long capture_id);
void end_pool_capture(int device, unsigned long long capture_id);
void release_pool(int device, cuda::MempoolId pool);

}  // namespace ember::cuda_backend

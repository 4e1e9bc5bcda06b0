// CUDA graph capture and replay (graph.cpp, include/ember/cuda_graph.h), and what other backend code asks of a
// capture under way.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>

#include "../core/cuda_hooks.h"

namespace ember::cuda_backend {

// Whether `stream` is capturing (an invalidated capture too, until it ends: work queued there does not run).
bool is_capturing(cudaStream_t stream);

// Lets this thread make calls that a capture under way would otherwise refuse (cudaMalloc, cudaHostAlloc) for a
// scope; they are not recorded in the capture.
class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode();
  ~RelaxedCaptureMode();
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  cudaStreamCaptureMode previous_;
};

// Pinned host memory of n bytes owned by the graph `stream` is capturing into, so that a captured copy from it
// reads it again at each replay (freed when the graph is reset).
void* capture_host_buffer(cudaStream_t stream, size_t n);

std::unique_ptr<cuda::CudaGraphBackend> make_graph(bool keep_graph);
cuda::MempoolId new_pool_handle();

}  // namespace ember::cuda_backend

// ember::cuda::CUDAGraph: the public face of the backend's graphs (src/cuda/graph.cpp), through the CUDA hooks.
#include "ember/cuda_graph.h"

#include "cuda_hooks.h"

namespace ember::cuda {

MempoolId graph_pool_handle() { return require_cuda("ember::cuda::graph_pool_handle").graph_pool_handle(); }

bool is_current_stream_capturing() {
  const CudaHooks& hooks = require_cuda("ember::cuda::is_current_stream_capturing");
  int device = hooks.current_device();
  return hooks.stream_capturing(device, hooks.current_stream(device));
}

CUDAGraph::CUDAGraph(bool keep_graph) : impl_(require_cuda("ember::cuda::CUDAGraph").make_graph(keep_graph)) {}
CUDAGraph::~CUDAGraph() = default;
void CUDAGraph::capture_begin(MempoolId pool, CaptureErrorMode mode) { impl_->capture_begin(pool, mode); }
void CUDAGraph::capture_end() { impl_->capture_end(); }
void CUDAGraph::instantiate() { impl_->instantiate(); }
void CUDAGraph::replay() { impl_->replay(); }
void CUDAGraph::reset() { impl_->reset(); }
MempoolId CUDAGraph::pool() const { return impl_->pool(); }
void CUDAGraph::enable_debug_mode() { impl_->enable_debug_mode(); }
void CUDAGraph::debug_dump(const std::string& path) { impl_->debug_dump(path); }

}  // namespace ember::cuda

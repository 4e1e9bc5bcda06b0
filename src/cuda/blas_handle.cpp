#include "blas_handle.h"

#include <atomic>
#include <map>
#include <mutex>
#include <utility>

#include "graph.h"
#include "runtime.h"

namespace ember::cuda_backend {

namespace {
constexpr size_t kWorkspaceBytes = size_t(32) << 20;  // as torch's default on Hopper
std::atomic<bool> tf32{false};
}  // namespace

void raise_cublas_error(cublasStatus_t status, const char* what, const char* file, int line) {
  throw Error(str("CUDA error: ", cublasLtGetStatusName(status), " (", cublasLtGetStatusString(status),
                  ") when calling `", what, "` at ", file, ":", line));
}

BlasHandle blas_handle() {
  static std::mutex mutex;
  static std::map<int, cublasLtHandle_t> handles;                      // never destroyed: they live as long as
  static std::map<std::pair<int, cudaStream_t>, void*> workspaces;     // the process, as the pooled streams
  int device = current_device();
  cudaStream_t stream = current_stream(device);
  std::lock_guard<std::mutex> lock(mutex);
  cublasLtHandle_t& handle = handles[device];
  if (!handle) EMBER_CUBLAS_CHECK(cublasLtCreate(&handle));
  void*& workspace = workspaces[{device, stream}];
  if (!workspace) {
    RelaxedCaptureMode relaxed;  // a stream's first product may be inside a graph capture
    EMBER_CUDA_CHECK(cudaMalloc(&workspace, kWorkspaceBytes));
  }
  return {handle, workspace, kWorkspaceBytes};
}

bool allow_tf32() { return tf32.load(std::memory_order_relaxed); }
void set_allow_tf32(bool allow) { tf32.store(allow, std::memory_order_relaxed); }

}  // namespace ember::cuda_backend

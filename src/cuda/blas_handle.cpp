#include "blas_handle.h"

#include <atomic>
#include <memory>
#include <mutex>

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

const BlasHandle& blas_handle() {
  static const int count = device_count();
  static const std::unique_ptr<BlasHandle[]> handles(new BlasHandle[size_t(count)]);
  static std::mutex mutex;
  int device = current_device();
  std::lock_guard<std::mutex> lock(mutex);
  BlasHandle& h = handles[size_t(device)];
  if (!h.handle) {  // never destroyed: the handles live as long as the process
    BlasHandle made;
    EMBER_CUBLAS_CHECK(cublasLtCreate(&made.handle));
    EMBER_CUDA_CHECK(cudaMalloc(&made.workspace, kWorkspaceBytes));
    made.workspace_size = kWorkspaceBytes;
    h = made;
  }
  return h;
}

bool allow_tf32() { return tf32.load(std::memory_order_relaxed); }
void set_allow_tf32(bool allow) { tf32.store(allow, std::memory_order_relaxed); }

}  // namespace ember::cuda_backend

#include "cudnn_handle.h"

#include <map>
#include <mutex>
#include <vector>

#include "runtime.h"

namespace ember::cuda_backend {

namespace {

// Handles of threads that have ended, per device, for the next threads (never destroyed: they live as long as the
// process, and the pool outlives every thread's exit).
struct Pool {
  std::mutex mutex;
  std::map<int, std::vector<cudnnHandle_t>> free;
};
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

// One thread's handles by device, given back to the pool when the thread ends.
struct ThreadHandles {
  std::map<int, cudnnHandle_t> handles;
  ~ThreadHandles() {
    std::lock_guard<std::mutex> lock(pool().mutex);
    for (auto& [device, handle] : handles) pool().free[device].push_back(handle);
  }
};

}  // namespace

void raise_cudnn_error(cudnnStatus_t status, const char* what, const char* file, int line) {
  throw Error(str("cuDNN error: ", cudnnGetErrorString(status), " when calling `", what, "` at ", file, ":", line));
}

cudnnHandle_t cudnn_handle() {
  thread_local ThreadHandles mine;
  int device = current_device();
  cudnnHandle_t& handle = mine.handles[device];
  if (!handle) {
    {
      std::lock_guard<std::mutex> lock(pool().mutex);
      std::vector<cudnnHandle_t>& free = pool().free[device];
      if (!free.empty()) {
        handle = free.back();
        free.pop_back();
      }
    }
    if (!handle) EMBER_CUDNN_CHECK(cudnnCreate(&handle));
  }
  EMBER_CUDNN_CHECK(cudnnSetStream(handle, current_stream(device)));
  return handle;
}

}  // namespace ember::cuda_backend

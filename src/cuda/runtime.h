// The CUDA backend's runtime helpers: error checks that raise Ember's exceptions, the current device and
// stream, and launch geometry. Every kernel launch goes on current_stream() and is checked with EMBER_CUDA_LAUNCH.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <array>

#include "ember/device.h"
#include "ember/errors.h"
#include "ember/str.h"

namespace ember::cuda_backend {

[[noreturn]] void raise_cuda_error(cudaError_t err, const char* what, const char* file, int line);

// Runs a CUDA runtime call; a failure raises RuntimeError naming the call and the CUDA error.
#define EMBER_CUDA_CHECK(expr)                                                               \
  do {                                                                                       \
    cudaError_t ember_cuda_err_ = (expr);                                                    \
    if (ember_cuda_err_ != cudaSuccess) ::ember::cuda_backend::raise_cuda_error(ember_cuda_err_, #expr, __FILE__, __LINE__); \
  } while (0)
// After a kernel launch: a launch failure (bad configuration, no kernel image for this GPU) raises.
#define EMBER_CUDA_LAUNCH() EMBER_CUDA_CHECK(cudaGetLastError())

int device_count();
constexpr int kMaxDevices = 64;
int current_device();
// The device of a CUDA tensor or the current one ("cuda" without an index).
inline int device_index(Device d) { return d.has_index() ? d.index : current_device(); }

// Makes `device` current for a scope, restoring the previous one after.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// The stream kernels and copies of the current device (or of `device`) go on: per thread, the default
// stream (0) unless a stream context set another.
cudaStream_t current_stream();
cudaStream_t current_stream(int device);
void set_current_stream(int device, cudaStream_t stream);
// The next of a device's pooled streams (32 per priority, created on first use, round robin; never destroyed).
cudaStream_t pool_stream(int device, bool high_priority);

// The number of multiprocessors of the current device (cached per device; src/cuda/reduce/reduce.cpp).
int sm_count();

// Launch geometry for an elementwise pass over n elements: blocks of kBlockThreads, each thread
// doing kItemsPerThread elements; at most a grid's worth of blocks (loops stride over the rest).
constexpr int kBlockThreads = 256;
constexpr int kItemsPerThread = 4;
inline unsigned grid_for(int64_t n, int items_per_thread = kItemsPerThread) {
  int64_t per_block = int64_t(kBlockThreads) * items_per_thread;
  int64_t blocks = (n + per_block - 1) / per_block;
  return unsigned(blocks < 1 ? 1 : blocks > (1 << 30) ? (1 << 30) : blocks);
}

}  // namespace ember::cuda_backend

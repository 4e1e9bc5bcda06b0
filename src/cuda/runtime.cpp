// CUDA error reporting, the current device and stream.
#include "runtime.h"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace ember::cuda_backend {

void raise_cuda_error(cudaError_t err, const char* what, const char* file, int line) {
  cudaGetLastError();  // clears a sticky launch error so later calls start clean
  std::string msg = str("CUDA error: ", cudaGetErrorString(err), " (", cudaGetErrorName(err), ") in ", what);
  if (err == cudaErrorMemoryAllocation) throw OutOfMemoryError(msg);
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) throw DeviceUnavailableError(msg);
  throw Error(msg);
}

int device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;  // no driver or no GPU: the backend answers as a machine without CUDA
    }
    return std::min(n, kMaxDevices);
  }();
  return count;
}

int current_device() {
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

DeviceGuard::DeviceGuard(int device) {
  int now = current_device();
  if (now != device) {
    EMBER_CUDA_CHECK(cudaSetDevice(device));
    previous_ = now;
  }
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) cudaSetDevice(previous_);
}

namespace {
thread_local std::array<cudaStream_t, kMaxDevices> t_current_stream{};
}  // namespace

cudaStream_t current_stream() { return t_current_stream[size_t(current_device())]; }
cudaStream_t current_stream(int device) { return t_current_stream[size_t(device)]; }
void set_current_stream(int device, cudaStream_t stream) { t_current_stream[size_t(device)] = stream; }

cudaStream_t pool_stream(int device, bool high_priority) {
  constexpr int kPoolSize = 32;
  struct Pool {
    std::once_flag created;
    std::array<cudaStream_t, kPoolSize> streams{};
    std::atomic<unsigned> next{0};
  };
  static std::array<std::array<Pool, 2>, kMaxDevices> pools;
  Pool& pool = pools[size_t(device)][high_priority];
  std::call_once(pool.created, [&] {
    DeviceGuard guard(device);
    int least = 0, greatest = 0;
    EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (auto& s : pool.streams) {
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, high_priority ? greatest : least));
    }
  });
  return pool.streams[pool.next++ % kPoolSize];
}

}  // namespace ember::cuda_backend

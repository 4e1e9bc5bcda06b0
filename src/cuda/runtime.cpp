// CUDA error reporting, the current device and stream.
#include "runtime.h"

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
    return n;
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

cudaStream_t current_stream() { return cudaStreamLegacy; }

}  // namespace ember::cuda_backend

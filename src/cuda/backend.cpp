// The backend's entry: as libember_cuda.so loads, it registers its hooks (device queries, copies, pinned
// memory), its allocator and its kernels with the core.
#include "../core/cuda_hooks.h"
#include "allocator.h"
#include "blas_handle.h"
#include "kernels.h"
#include "runtime.h"

namespace ember::cuda_backend {

namespace {

int resolve(int device) { return device < 0 ? current_device() : device; }

class Hooks final : public CudaHooks {
 public:
  int device_count() const override { return cuda_backend::device_count(); }
  int current_device() const override { return cuda_backend::current_device(); }
  void set_device(int device) const override {
    check_index(device);
    EMBER_CUDA_CHECK(cudaSetDevice(device));
  }
  void synchronize(int device) const override {
    DeviceGuard guard(check_index(resolve(device)));
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  }
  cuda::DeviceProperties properties(int device) const override {
    cudaDeviceProp p;
    EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, check_index(resolve(device))));
    return {p.name, p.major, p.minor, p.multiProcessorCount, p.totalGlobalMem, size_t(p.l2CacheSize)};
  }
  cuda::MemoryStats memory_stats(int device) const override {
    return cuda_backend::memory_stats(check_index(resolve(device)));
  }
  void reset_peak_memory_stats(int device) const override {
    cuda_backend::reset_peak_memory_stats(check_index(resolve(device)));
  }
  void empty_cache() const override { cuda_backend::empty_cache(); }
  std::pair<size_t, size_t> mem_get_info(int device) const override {
    DeviceGuard guard(check_index(resolve(device)));
    size_t free = 0, total = 0;
    EMBER_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return {free, total};
  }
  void set_memory_fraction(double fraction, int device) const override {
    cuda_backend::set_memory_fraction(fraction, check_index(resolve(device)));
  }
  void memcpy(void* dst, Device dst_device, const void* src, Device src_device, size_t n,
              bool non_blocking) const override {
    if (n == 0) return;
    DeviceGuard guard(dst_device.is_cuda() ? device_index(dst_device) : device_index(src_device));
    cudaStream_t stream = current_stream();
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, stream));
    // Copies that touch host memory finish before returning unless asked not to (then the host side must be
    // pinned for the copy to be asynchronous at all); device-to-device copies stay queued, in stream order.
    if (!non_blocking && (dst_device.is_cpu() || src_device.is_cpu())) EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  void* alloc_pinned(size_t nbytes) const override {
    void* p = nullptr;
    EMBER_CUDA_CHECK(cudaHostAlloc(&p, nbytes ? nbytes : 1, cudaHostAllocDefault));
    return p;
  }
  void free_pinned(void* p) const override { cudaFreeHost(p); }
  bool is_pinned(const void* p) const override {
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return attr.type == cudaMemoryTypeHost;
  }
  bool allow_tf32() const override { return cuda_backend::allow_tf32(); }
  void set_allow_tf32(bool allow) const override { cuda_backend::set_allow_tf32(allow); }

 private:
  static int check_index(int device) {
    int n = cuda_backend::device_count();
    EMBER_CHECK(device >= 0 && device < n, Error, "Invalid device ordinal: device ", device, " of ", n,
                " CUDA device", n == 1 ? "" : "s");
    return device;
  }
};

// Runs as the library loads.
const bool registered = [] {
  static const Hooks hooks;
  register_cuda_hooks(&hooks);
  if (cuda_backend::device_count() > 0) {
    register_allocator(DeviceType::CUDA, &cuda_allocator());
    register_kernels();
  }
  return true;
}();

}  // namespace

}  // namespace ember::cuda_backend

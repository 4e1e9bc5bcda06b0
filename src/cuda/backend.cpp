// The backend's entry: as libember_cuda.so loads, it registers its hooks (device queries, copies, pinned
// memory), its allocator and its kernels with the core.
#include "../core/cuda_hooks.h"
#include "allocator.h"
#include "blas_handle.h"
#include "graph.h"
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
    cudaStream_t stream = cuda_backend::current_stream();
    // Copies that touch host memory finish before returning unless asked not to (then the host side must be
    // pinned for the copy to be asynchronous at all); device-to-device copies stay queued, in stream order.
    const bool wait = !non_blocking && (dst_device.is_cpu() || src_device.is_cpu());
    // Under a capture the wait fails first, as CUDA reports it ("operation not permitted when stream is
    // capturing"), invalidating the capture, before a copy from pageable memory could be recorded.
    if (wait && is_capturing(stream)) EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, stream));
    if (wait) EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  void* alloc_pinned(size_t nbytes) const override {
    void* p = nullptr;
    EMBER_CUDA_CHECK(cudaHostAlloc(&p, nbytes ? nbytes : 1, cudaHostAllocDefault));
    return p;
  }
  void free_pinned(void* p) const override { cudaFreeHost(p); }
  uintptr_t stream_from_pool(int device, bool high_priority) const override {
    return handle(pool_stream(check_index(resolve(device)), high_priority));
  }
  uintptr_t current_stream(int device) const override { return handle(cuda_backend::current_stream(check_index(resolve(device)))); }
  void set_current_stream(int device, uintptr_t stream) const override {
    cuda_backend::set_current_stream(check_index(resolve(device)), as_stream(stream));
  }
  void stream_synchronize(int device, uintptr_t stream) const override {
    DeviceGuard guard(check_index(resolve(device)));
    EMBER_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
  }
  bool stream_query(int device, uintptr_t stream) const override {
    DeviceGuard guard(check_index(resolve(device)));
    return ready(cudaStreamQuery(as_stream(stream)));
  }
  void stream_wait_event(int device, uintptr_t stream, uintptr_t event) const override {
    DeviceGuard guard(check_index(resolve(device)));
    EMBER_CUDA_CHECK(cudaStreamWaitEvent(as_stream(stream), as_event(event), 0));
  }
  uintptr_t event_create(int device, bool timing, bool blocking) const override {
    DeviceGuard guard(check_index(resolve(device)));
    cudaEvent_t e;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, (timing ? 0 : cudaEventDisableTiming) | (blocking ? cudaEventBlockingSync : 0)));
    return reinterpret_cast<uintptr_t>(e);
  }
  void event_destroy(uintptr_t event) const override { cudaEventDestroy(as_event(event)); }
  void event_record(int device, uintptr_t event, uintptr_t stream) const override {
    DeviceGuard guard(check_index(resolve(device)));
    EMBER_CUDA_CHECK(cudaEventRecord(as_event(event), as_stream(stream)));
  }
  void event_synchronize(uintptr_t event) const override { EMBER_CUDA_CHECK(cudaEventSynchronize(as_event(event))); }
  bool event_query(uintptr_t event) const override { return ready(cudaEventQuery(as_event(event))); }
  float event_elapsed_ms(uintptr_t start, uintptr_t end) const override {
    float ms = 0;
    EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, as_event(start), as_event(end)));
    return ms;
  }
  void record_stream(void* block, uintptr_t stream) const override { cuda_backend::record_stream(block, as_stream(stream)); }

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
  std::unique_ptr<cuda::CudaGraphBackend> make_graph(bool keep_graph) const override {
    return cuda_backend::make_graph(keep_graph);
  }
  cuda::MempoolId graph_pool_handle() const override { return new_pool_handle(); }
  bool stream_capturing(int device, uintptr_t stream) const override {
    DeviceGuard guard(check_index(resolve(device)));
    return is_capturing(as_stream(stream));
  }

 private:
  static uintptr_t handle(cudaStream_t s) { return reinterpret_cast<uintptr_t>(s); }
  static cudaStream_t as_stream(uintptr_t h) { return reinterpret_cast<cudaStream_t>(h); }
  static cudaEvent_t as_event(uintptr_t h) { return reinterpret_cast<cudaEvent_t>(h); }
  // A query's answer: done, not yet, or a raised error.
  static bool ready(cudaError_t err) {
    if (err == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    EMBER_CUDA_CHECK(err);
    return true;
  }
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

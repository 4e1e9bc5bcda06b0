// The calls the device-neutral core makes into the CUDA backend. The backend is a separate library
// (libember_cuda, src/cuda/) that registers its hooks, allocator and kernels when it loads, so the CPU
// library neither links nor loads the CUDA libraries until a CUDA device is asked for.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ember/cuda.h"
#include "ember/cuda_graph.h"
#include "ember/device.h"

namespace ember {

namespace cuda {
// The backend's side of a CUDAGraph (src/cuda/graph.cpp).
class CudaGraphBackend {
 public:
  virtual ~CudaGraphBackend() = default;
  virtual void capture_begin(MempoolId pool, CaptureErrorMode mode) = 0;
  virtual void capture_end() = 0;
  virtual void instantiate() = 0;
  virtual void replay() = 0;
  virtual void reset() = 0;
  virtual MempoolId pool() const = 0;
  virtual void enable_debug_mode() = 0;
  virtual void debug_dump(const std::string& path) = 0;
};
}  // namespace cuda

class CudaHooks {
 public:
  virtual ~CudaHooks() = default;
  virtual int device_count() const = 0;
  virtual int current_device() const = 0;
  virtual void set_device(int device) const = 0;
  virtual void synchronize(int device) const = 0;
  virtual cuda::DeviceProperties properties(int device) const = 0;
  virtual cuda::MemoryStats memory_stats(int device) const = 0;
  virtual void reset_peak_memory_stats(int device) const = 0;
  virtual void empty_cache() const = 0;
  virtual std::pair<size_t, size_t> mem_get_info(int device) const = 0;
  virtual void set_memory_fraction(double fraction, int device) const = 0;
  // Copies n bytes between host and device memory or within devices; synchronous unless `non_blocking`
  // (which is honoured, as in torch, only where the host side is pinned).
  virtual void memcpy(void* dst, Device dst_device, const void* src, Device src_device, size_t n,
                      bool non_blocking) const = 0;
  // Page-locked host memory for fast and asynchronous copies (pin_memory()).
  virtual void* alloc_pinned(size_t nbytes) const = 0;
  virtual void free_pinned(void* p) const = 0;
  virtual bool is_pinned(const void* p) const = 0;

  // Streams and events, as opaque handles (a cudaStream_t or cudaEvent_t; stream 0 is the default stream).
  // Streams come from a per-device pool and live for the process, as torch's.
  virtual uintptr_t stream_from_pool(int device, bool high_priority) const = 0;
  virtual uintptr_t current_stream(int device) const = 0;
  virtual void set_current_stream(int device, uintptr_t stream) const = 0;
  virtual void stream_synchronize(int device, uintptr_t stream) const = 0;
  virtual bool stream_query(int device, uintptr_t stream) const = 0;
  virtual void stream_wait_event(int device, uintptr_t stream, uintptr_t event) const = 0;
  virtual uintptr_t event_create(int device, bool timing, bool blocking) const = 0;
  virtual void event_destroy(uintptr_t event) const = 0;
  virtual void event_record(int device, uintptr_t event, uintptr_t stream) const = 0;
  virtual void event_synchronize(uintptr_t event) const = 0;
  virtual bool event_query(uintptr_t event) const = 0;
  virtual float event_elapsed_ms(uintptr_t start, uintptr_t end) const = 0;
  // Marks the block behind a CUDA DataPtr's context as used on `stream`: when freed, it is reused only after the
  // work queued on that stream so far has finished.
  virtual void record_stream(void* block, uintptr_t stream) const = 0;
  // Whether float32 products may round their inputs to TF32 (torch.backends.cuda.matmul.allow_tf32).
  virtual bool allow_tf32() const = 0;
  virtual void set_allow_tf32(bool allow) const = 0;

  // CUDA graphs (include/ember/cuda_graph.h).
  virtual std::unique_ptr<cuda::CudaGraphBackend> make_graph(bool keep_graph) const = 0;
  virtual cuda::MempoolId graph_pool_handle() const = 0;
  // Whether `stream` is capturing a graph (an invalidated capture counts until it ends).
  virtual bool stream_capturing(int device, uintptr_t stream) const = 0;
};

// The backend's hooks, loading it on first use; nullptr when this build or machine has none
// (cuda_unavailable_reason() says why).
const CudaHooks* cuda_hooks();
std::string cuda_unavailable_reason();
// The hooks if the backend has loaded already, without loading it.
const CudaHooks* loaded_cuda_hooks();
// The hooks, or DeviceUnavailableError naming why there are none.
const CudaHooks& require_cuda(const char* what);
// Called by the backend as it loads.
void register_cuda_hooks(const CudaHooks* hooks);

}  // namespace ember

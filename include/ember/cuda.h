// ember::cuda: the CUDA devices, as torch.cuda offers them. The backend (libember_cuda) loads on first use;
// on a machine without it or without a GPU, is_available() is false, device_count() 0, and the calls that
// need a device raise DeviceUnavailableError naming why.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace ember::cuda {

bool is_available();
// Why is_available() is false ("" when it is true).
std::string unavailable_reason();
int device_count();
int current_device();
void set_device(int device);
// Waits for all work queued on `device` (-1: the current device).
void synchronize(int device = -1);

struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;        // compute capability
  int multi_processor_count = 0;
  size_t total_memory = 0;         // bytes
  size_t l2_cache_size = 0;        // bytes
};
DeviceProperties get_device_properties(int device = -1);

// The caching allocator's statistics for one device, in bytes (torch.cuda.memory_stats' main entries):
// allocated: held by live tensors (block sizes, rounded up as allocated); reserved: taken from the driver
// (live blocks and the cache); peaks since the last reset; counts of allocations, frees, driver
// allocations, retries after emptying the cache, and out-of-memory errors.
struct MemoryStats {
  int64_t allocated = 0, peak_allocated = 0, reserved = 0, peak_reserved = 0;
  int64_t requested = 0;  // bytes asked for by live tensors, before rounding
  int64_t num_allocs = 0, num_frees = 0, num_segments = 0, num_alloc_retries = 0, num_ooms = 0;
};
MemoryStats memory_stats(int device = -1);
void reset_peak_memory_stats(int device = -1);
// Returns the cached, unused blocks of every device to the driver.
void empty_cache();
// The driver's free and total bytes of `device`.
std::pair<size_t, size_t> mem_get_info(int device = -1);
// Caps this process's reserved memory on `device` at fraction * total; past it, allocation fails as out of memory.
void set_per_process_memory_fraction(double fraction, int device = -1);
// Whether CUDA float32 matmuls may round their inputs to TF32 (torch.backends.cuda.matmul.allow_tf32, default
// false); kept, without loading the backend, where none is loaded yet.
bool matmul_allow_tf32();
void set_matmul_allow_tf32(bool allow);

// A CUDA stream: kernels and copies queued on one stream run in order; streams run concurrently.
// Stream 0 is the device's default stream; the others come from a pool per device (never destroyed).
struct Stream {
  uintptr_t handle = 0;  // the cudaStream_t
  int device = 0;
  static Stream from_pool(bool high_priority = false, int device = -1);
  void synchronize() const;
  bool query() const;  // whether all queued work has finished
  bool operator==(const Stream&) const = default;
};
// The stream this thread's work on `device` goes on (the default stream unless set).
Stream current_stream(int device = -1);
Stream default_stream(int device = -1);
void set_current_stream(const Stream& stream);

// Makes `stream` current (on its device) for a scope.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
};

// A CUDA event: a point in a stream's work, to wait for or to time.
class Event {
 public:
  explicit Event(bool enable_timing = false, bool blocking = false, int device = -1);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(const Stream& stream);
  void record() { record(current_stream(device_)); }
  void wait(const Stream& stream) const;  // the stream's later work waits for this event
  void synchronize() const;
  bool query() const;
  float elapsed_time(const Event& end) const;  // milliseconds from this event to `end`; both timed and recorded
  uintptr_t handle() const { return handle_; }

 private:
  uintptr_t handle_ = 0;
  int device_ = 0;
};

}  // namespace ember::cuda

namespace ember {
class Tensor;
namespace cuda {
// The tensor's memory is in use on `stream` too: its freed block is reused only after the stream's work so far.
void record_stream(const Tensor& tensor, const Stream& stream);
}  // namespace cuda
}  // namespace ember

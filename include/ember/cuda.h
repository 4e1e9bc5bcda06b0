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

}  // namespace ember::cuda

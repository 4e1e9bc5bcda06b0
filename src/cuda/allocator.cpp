// The CUDA caching allocator (see allocator.h). Sizes round up to 512 bytes, and to 2 MiB past 1 MiB, so freed
// blocks fit later requests; a request reuses a cached block of its rounded size (small) or of at most a quarter
// more (large). When the driver has no memory left, the cache is returned to it and the allocation retried once.
#include "allocator.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <vector>

#include "runtime.h"

namespace ember::cuda_backend {

namespace {

constexpr size_t kSmall = 1 << 20;
constexpr size_t kRoundSmall = 512;
constexpr size_t kRoundLarge = 2 << 20;

size_t round_size(size_t n) {
  size_t unit = n <= kSmall ? kRoundSmall : kRoundLarge;
  return (n + unit - 1) / unit * unit;
}

std::string format_bytes(double n) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  for (; n >= 1024 && u < 4; ++u) n /= 1024;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", n, units[u]);
  return buf;
}

struct Block {
  void* ptr;
  size_t size;       // rounded, as allocated from the driver
  size_t requested;  // what the tensor asked for
  int device;
};

class DeviceCache {
 public:
  // A block of at least `rounded` bytes, from the cache or the driver; nullptr when the driver has none.
  Block* take(size_t rounded, size_t requested, int device, double fraction) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.lower_bound(rounded);
    size_t slack = rounded <= kSmall ? 0 : rounded / 4;
    if (it != free_.end() && it->first <= rounded + slack) {
      Block* b = it->second;
      free_.erase(it);
      return hand_out(b, requested);
    }
    void* p = nullptr;
    bool within_fraction = fraction >= 1.0 || double(stats_.reserved + int64_t(rounded)) <= fraction * total_memory(device);
    cudaError_t err = within_fraction ? cudaMalloc(&p, rounded) : cudaErrorMemoryAllocation;
    if (err != cudaSuccess) {
      cudaGetLastError();
      release_cached();  // give the cache back to the driver and try once more
      ++stats_.num_alloc_retries;
      within_fraction = fraction >= 1.0 || double(stats_.reserved + int64_t(rounded)) <= fraction * total_memory(device);
      err = within_fraction ? cudaMalloc(&p, rounded) : cudaErrorMemoryAllocation;
      if (err != cudaSuccess) {
        cudaGetLastError();
        ++stats_.num_ooms;
        return nullptr;
      }
    }
    stats_.reserved += int64_t(rounded);
    stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
    ++stats_.num_segments;
    return hand_out(new Block{p, rounded, requested, device}, requested);
  }

  void give_back(Block* b) {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.allocated -= int64_t(b->size);
    stats_.requested -= int64_t(b->requested);
    ++stats_.num_frees;
    free_.emplace(b->size, b);
  }

  void release_cached() {  // mutex_ held by the caller
    for (auto& [size, b] : free_) {
      cudaFree(b->ptr);
      stats_.reserved -= int64_t(size);
      --stats_.num_segments;
      delete b;
    }
    free_.clear();
  }
  void empty_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    release_cached();
  }

  cuda::MemoryStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  void reset_peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.peak_allocated = stats_.allocated;
    stats_.peak_reserved = stats_.reserved;
  }
  int64_t reserved() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_.reserved;
  }

 private:
  Block* hand_out(Block* b, size_t requested) {
    b->requested = requested;
    stats_.allocated += int64_t(b->size);
    stats_.requested += int64_t(requested);
    stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
    ++stats_.num_allocs;
    return b;
  }
  static double total_memory(int device) {
    size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    return double(total);
  }

  std::mutex mutex_;
  std::multimap<size_t, Block*> free_;
  cuda::MemoryStats stats_;
};

class CudaAllocator final : public Allocator {
 public:
  CudaAllocator() : caches_(size_t(device_count())), fractions_(size_t(device_count()), 1.0) {}

  DataPtr allocate(size_t nbytes, Device where) override {
    int device = device_index(where);
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CUDA, int8_t(device)));
    size_t rounded = round_size(nbytes);
    DeviceGuard guard(device);
    Block* b = cache(device).take(rounded, nbytes, device, fractions_[size_t(device)]);
    if (!b) throw OutOfMemoryError(oom_message(device, rounded));
    return DataPtr(b->ptr, b, &CudaAllocator::release, Device(DeviceType::CUDA, int8_t(device)));
  }

  DeviceCache& cache(int device) {
    EMBER_CHECK(device >= 0 && size_t(device) < caches_.size(), Error, "Invalid device ordinal ", device,
                " (this machine has ", caches_.size(), " CUDA devices)");
    return caches_[size_t(device)];
  }
  void set_fraction(double fraction, int device) {
    cache(device);
    fractions_[size_t(device)] = fraction;
  }
  void empty_all() {
    for (auto& c : caches_) c.empty_cache();
  }

 private:
  static void release(void* ctx) {
    auto* b = static_cast<Block*>(ctx);
    static_cast<CudaAllocator&>(cuda_allocator()).cache(b->device).give_back(b);
  }

  std::string oom_message(int device, size_t rounded) {
    size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    cudaGetLastError();
    cuda::MemoryStats s = cache(device).stats();
    std::string msg = str("CUDA out of memory. Tried to allocate ", format_bytes(double(rounded)), ". GPU ", device,
                          " has a total capacity of ", format_bytes(double(total)), " of which ",
                          format_bytes(double(free)), " is free. Of the allocated memory ",
                          format_bytes(double(s.allocated)), " is allocated by Ember, and ",
                          format_bytes(double(s.reserved - s.allocated)), " is reserved by Ember but unallocated.");
    if (fractions_[size_t(device)] < 1.0) {
      msg += str(" This process is limited to ", fractions_[size_t(device)], " of the device's memory "
                 "(set_per_process_memory_fraction).");
    }
    return msg;
  }

  std::vector<DeviceCache> caches_;
  std::vector<double> fractions_;
};

}  // namespace

Allocator& cuda_allocator() {
  static CudaAllocator* allocator = new CudaAllocator();  // never destroyed: tensors may outlive static teardown
  return *allocator;
}

cuda::MemoryStats memory_stats(int device) { return static_cast<CudaAllocator&>(cuda_allocator()).cache(device).stats(); }
void reset_peak_memory_stats(int device) { static_cast<CudaAllocator&>(cuda_allocator()).cache(device).reset_peak(); }
void empty_cache() { static_cast<CudaAllocator&>(cuda_allocator()).empty_all(); }
void set_memory_fraction(double fraction, int device) {
  EMBER_CHECK(fraction >= 0.0 && fraction <= 1.0, ValueError, "Invalid fraction value: ", fraction,
              ". Allowed range: 0~1");
  static_cast<CudaAllocator&>(cuda_allocator()).set_fraction(fraction, device);
}

}  // namespace ember::cuda_backend

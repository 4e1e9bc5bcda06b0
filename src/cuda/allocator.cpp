// The CUDA caching allocator (see allocator.h). Sizes round up to 512 bytes, and to 2 MiB past 1 MiB, so freed
// blocks fit later requests; a request reuses a cached block of its rounded size (small) or of at most a quarter
// more (large) that was allocated on the same stream, so stream order keeps reuse safe. A block also used on other
// streams (record_stream) returns to the cache once events show those streams' work on it is done. When the
// driver has no memory left, the cache is returned to it and the allocation retried once.
// While a stream captures a CUDA graph, its allocations come from the graph's private pool (graph.cpp): the pool's
// blocks are reused only by allocations captured into it, and go back to the driver only after every graph using
// the pool is reset. No call that would break a capture (cudaFree, event queries) is made while one is under way.
#include "allocator.h"

#include <cstdio>
#include <algorithm>
#include <list>
#include <map>
#include <mutex>
#include <vector>

#include "graph.h"
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

struct Block;
using FreeBlocks = std::multimap<std::pair<cudaStream_t, size_t>, Block*>;  // by stream, then size

// A graph's private pool: its cached blocks, and the graphs that use it.
struct PrivatePool {
  FreeBlocks free;
  int users = 0;        // graphs capturing into it or holding a capture
  int64_t segments = 0;  // driver allocations it owns, live or cached
};

struct Block {
  void* ptr;
  size_t size;          // rounded, as allocated from the driver
  size_t requested;     // what the tensor asked for
  int device;
  cudaStream_t stream;  // where it was allocated
  PrivatePool* pool;    // the private pool it belongs to, or nullptr
  std::vector<cudaStream_t> used_on;  // other streams that use it (record_stream)
};

// A freed block waiting for the work of other streams that used it.
struct Pending {
  Block* block;
  std::vector<cudaEvent_t> events;
};

class DeviceCache {
 public:
  // A block of at least `rounded` bytes for `stream`, from the cache or the driver; nullptr when the driver has none.
  Block* take(size_t rounded, size_t requested, int device, double fraction, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    collect_pending(false);
    PrivatePool* pool = capture_pool(stream);
    FreeBlocks& free = pool ? pool->free : free_;
    auto it = free.lower_bound({stream, rounded});
    size_t slack = rounded <= kSmall ? 0 : rounded / 4;
    if (it != free.end() && it->first.first == stream && it->first.second <= rounded + slack) {
      Block* b = it->second;
      free.erase(it);
      return hand_out(b, requested);
    }
    void* p = driver_malloc(rounded, fraction);
    if (!p && !captures_.empty()) {  // freeing the cache would break the capture
      ++stats_.num_ooms;
      return nullptr;
    }
    if (!p) {
      release_cached();  // give the cache back to the driver and try once more
      ++stats_.num_alloc_retries;
      p = driver_malloc(rounded, fraction);
      if (!p) {
        ++stats_.num_ooms;
        return nullptr;
      }
    }
    stats_.reserved += int64_t(rounded);
    stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
    ++stats_.num_segments;
    if (pool) ++pool->segments;
    return hand_out(new Block{p, rounded, requested, device, stream, pool, {}}, requested);
  }

  void give_back(Block* b) {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.allocated -= int64_t(b->size);
    stats_.requested -= int64_t(b->requested);
    ++stats_.num_frees;
    if (b->used_on.empty()) {
      cache_block(b);
    } else if (!captures_.empty()) {
      deferred_.push_back(b);  // events cannot be recorded and queried during a capture
    } else {
      await_streams(b);
    }
  }

  // Queues b behind events on the other streams that used it. mutex_ held, no capture under way.
  void await_streams(Block* b) {
    Pending pending{b, {}};
    for (cudaStream_t s : b->used_on) {
      cudaEvent_t e;
      if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess || cudaEventRecord(e, s) != cudaSuccess) {
        cudaGetLastError();
        cudaStreamSynchronize(s);  // no event: wait for the stream instead
        continue;
      }
      pending.events.push_back(e);
    }
    b->used_on.clear();
    pending_.push_back(std::move(pending));
  }

  void record_stream(Block* b, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stream != b->stream && std::find(b->used_on.begin(), b->used_on.end(), stream) == b->used_on.end()) {
      b->used_on.push_back(stream);
    }
  }

  // Moves freed blocks whose streams' work has finished (all of them when `wait`) into the cache; nothing while a
  // capture is under way. mutex_ held.
  void collect_pending(bool wait) {
    if (!captures_.empty()) return;
    for (Block* b : deferred_) await_streams(b);
    deferred_.clear();
    for (auto it = pending_.begin(); it != pending_.end();) {
      auto& events = it->events;
      while (!events.empty() && (wait ? cudaEventSynchronize(events.back()) : cudaEventQuery(events.back())) == cudaSuccess) {
        cudaEventDestroy(events.back());
        events.pop_back();
      }
      cudaGetLastError();  // cudaErrorNotReady from a query
      if (!events.empty()) {
        ++it;
        continue;
      }
      cache_block(it->block);
      it = pending_.erase(it);
    }
  }

  // Returns the cache and the cached blocks of pools no graph uses to the driver. mutex_ held, no capture under way.
  void release_cached() {
    collect_pending(true);
    release(free_);
    for (auto it = pools_.begin(); it != pools_.end();) {
      if (it->second.users == 0) release(it->second.free);
      it = it->second.users == 0 && it->second.segments == 0 ? pools_.erase(it) : std::next(it);
    }
  }
  // As torch since 2.8, a no-op while a capture is under way.
  void empty_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (captures_.empty()) release_cached();
  }

  // Allocations on streams in capture `capture_id` come from pool `id` until end_capture.
  void begin_capture(cuda::MempoolId id, unsigned long long capture_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++pools_[id].users;
    captures_.emplace_back(capture_id, id);
  }
  void end_capture(unsigned long long capture_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(captures_, [&](const auto& c) { return c.first == capture_id; });
  }
  // A graph no longer uses pool `id`: with no other user, its cached memory may go back to the driver.
  void release_pool(cuda::MempoolId id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = pools_.find(id);
    if (it != pools_.end() && it->second.users > 0) --it->second.users;
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
  static double total_memory() {
    size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    return double(total);
  }

  // Device memory within the process's fraction of it, or nullptr.
  void* driver_malloc(size_t rounded, double fraction) {
    RelaxedCaptureMode relaxed;  // a capture under way neither records nor forbids these calls
    if (fraction < 1.0 && double(stats_.reserved + int64_t(rounded)) > fraction * total_memory()) return nullptr;
    void* p = nullptr;
    if (cudaMalloc(&p, rounded) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return p;
  }

  void cache_block(Block* b) { (b->pool ? b->pool->free : free_).emplace(std::make_pair(b->stream, b->size), b); }

  void release(FreeBlocks& blocks) {
    for (auto& [key, b] : blocks) {
      cudaFree(b->ptr);
      stats_.reserved -= int64_t(key.second);
      --stats_.num_segments;
      if (b->pool) --b->pool->segments;
      delete b;
    }
    blocks.clear();
  }

  // The pool of the capture `stream` takes part in, or nullptr. mutex_ held.
  PrivatePool* capture_pool(cudaStream_t stream) {
    if (captures_.empty() || !stream) return nullptr;  // the legacy default stream never captures
    cudaStreamCaptureStatus status;
    unsigned long long id = 0;
    if (cudaStreamGetCaptureInfo(stream, &status, &id) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    if (status != cudaStreamCaptureStatusActive) return nullptr;
    for (const auto& [capture, pool] : captures_)
      if (capture == id) return &pools_[pool];
    return nullptr;
  }

  std::mutex mutex_;
  FreeBlocks free_;
  std::list<Pending> pending_;
  std::vector<Block*> deferred_;  // freed during a capture while in use on other streams
  std::map<cuda::MempoolId, PrivatePool> pools_;
  std::vector<std::pair<unsigned long long, cuda::MempoolId>> captures_;  // captures under way, and their pools
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
    Block* b = cache(device).take(rounded, nbytes, device, fractions_[size_t(device)], current_stream(device));
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
    {
      RelaxedCaptureMode relaxed;
      cudaMemGetInfo(&free, &total);
    }
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
void record_stream(void* block, cudaStream_t stream) {
  auto* b = static_cast<Block*>(block);
  static_cast<CudaAllocator&>(cuda_allocator()).cache(b->device).record_stream(b, stream);
}
void empty_cache() { static_cast<CudaAllocator&>(cuda_allocator()).empty_all(); }
void begin_pool_capture(int device, cuda::MempoolId pool, unsigned long long capture_id) {
  static_cast<CudaAllocator&>(cuda_allocator()).cache(device).begin_capture(pool, capture_id);
}
void end_pool_capture(int device, unsigned long long capture_id) {
  static_cast<CudaAllocator&>(cuda_allocator()).cache(device).end_capture(capture_id);
}
void release_pool(int device, cuda::MempoolId pool) {
  static_cast<CudaAllocator&>(cuda_allocator()).cache(device).release_pool(pool);
}
void set_memory_fraction(double fraction, int device) {
  EMBER_CHECK(fraction >= 0.0 && fraction <= 1.0, ValueError, "Invalid fraction value: ", fraction,
              ". Allowed range: 0~1");
  static_cast<CudaAllocator&>(cuda_allocator()).set_fraction(fraction, device);
}

}  // namespace ember::cuda_backend

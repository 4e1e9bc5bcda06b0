// The CPU allocator. Small blocks come from malloc. Large blocks are mapped (from 2 MiB on, on huge pages) and
// cached after free (bounded), because first-touching fresh memory costs ~2.4 us per 4 KiB page:
// a loop that allocates a 64 MiB result each step would otherwise spend most of its time faulting. Blocks from
// 256 KiB on count as large: below 1 MiB, glibc's heap trimmed and regrew each step of the main job's train step
// (~700 page faults a step for its 784 KiB activations, ~2% of its time).
#include "ember/allocator.h"

#include "cuda_hooks.h"

#include <sys/mman.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "ember/errors.h"

namespace ember {

namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kHeader = kAlignment;       // keeps the payload 64-byte aligned
constexpr size_t kLargeBlock = 256 << 10;    // from 256 KiB on, blocks are mapped and cached
constexpr size_t kPage = 4096;
constexpr size_t kHugePage = 2 << 20;
constexpr size_t kMaxCached = size_t(2) << 30;
#ifdef EMBER_SANITIZE
constexpr bool kSanitize = true;  // no caching, no mapping, no slack: ASan checks each tensor's bounds
#else
constexpr bool kSanitize = false;
#endif

struct BlockHeader {
  size_t requested;   // bytes the tensor asked for
  size_t block_size;  // bytes reserved, header included
  bool large;
};

size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

// Recently freed small blocks, per thread and per 64-byte size class: creating and dropping
// small tensors in a loop then costs no malloc/free (glibc's aligned_alloc is slow).
class SmallBlockCache {
 public:
  static constexpr size_t kMaxBytes = 4096;
  static constexpr size_t kPerClass = 32;

  void* take(size_t block_size) {
    auto& list = lists_[block_size / kAlignment];
    if (list.empty()) return nullptr;
    void* p = list.back();
    list.pop_back();
    return p;
  }
  bool give(void* p, size_t block_size) {
    auto& list = lists_[block_size / kAlignment];
    if (list.size() >= kPerClass) return false;
    list.push_back(p);
    return true;
  }
  SmallBlockCache() { alive = true; }
  ~SmallBlockCache() {
    alive = false;  // blocks freed later in this thread's exit go straight to free()
    for (auto& list : lists_) for (void* p : list) std::free(p);
  }

  static thread_local bool alive;

 private:
  std::array<std::vector<void*>, kMaxBytes / kAlignment + 1> lists_;
};

thread_local bool SmallBlockCache::alive = false;
thread_local SmallBlockCache t_small_cache;

class CPUAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, Device) override {
    size_t total = kHeader + nbytes;
    bool large = !kSanitize && total >= kLargeBlock;
    size_t block_size = large      ? round_up(total, total >= kHugePage ? kHugePage : kPage)
                        : kSanitize ? total
                                    : round_up(total, kAlignment);
    void* base = large ? take_large(block_size) : take_small(block_size);  // may grow block_size
    if (!base) {
      throw Error(str("[enforce fail at alloc_cpu.cpp] DefaultCPUAllocator: can't allocate memory: you tried to "
                      "allocate ", nbytes, " bytes. Error code 12 (Cannot allocate memory)"));
    }
    *static_cast<BlockHeader*>(base) = {nbytes, block_size, large};
    note_alloc(nbytes, block_size, large);
    return DataPtr(static_cast<char*>(base) + kHeader, base, &CPUAllocator::release, kCPU);
  }

  MemoryStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {allocated_.load(), peak_.load(), reserved_.load(), cached_};
  }

  void reset_peak() { peak_.store(allocated_.load()); }

  void empty_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [size, ptr] : free_) {
      munmap(ptr, size);
      reserved_.fetch_sub(int64_t(size), std::memory_order_relaxed);
    }
    free_.clear();
    cached_ = 0;
  }

  static CPUAllocator& instance() {
    static CPUAllocator* a = new CPUAllocator();  // outlives every tensor, even at exit
    return *a;
  }

 private:
  static void release(void* base) { instance().free_block(static_cast<BlockHeader*>(base)); }

  void note_alloc(size_t nbytes, size_t block_size, bool large) {
    int64_t now = allocated_.fetch_add(int64_t(nbytes), std::memory_order_relaxed) + int64_t(nbytes);
    int64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
    if (!large) reserved_.fetch_add(int64_t(block_size), std::memory_order_relaxed);
  }

  static void* take_small(size_t block_size) {
    if (!kSanitize && block_size <= SmallBlockCache::kMaxBytes) {
      if (void* p = t_small_cache.take(block_size)) return p;
    }
    void* p = nullptr;
    return posix_memalign(&p, kAlignment, block_size) == 0 ? p : nullptr;
  }

  void free_block(BlockHeader* h) {
    BlockHeader header = *h;
    allocated_.fetch_sub(int64_t(header.requested), std::memory_order_relaxed);
    if (!header.large) {
      reserved_.fetch_sub(int64_t(header.block_size), std::memory_order_relaxed);
      bool cached = !kSanitize && header.block_size <= SmallBlockCache::kMaxBytes && SmallBlockCache::alive &&
                    t_small_cache.give(h, header.block_size);
      if (!cached) std::free(h);
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (cached_ + header.block_size > kMaxCached) {
      munmap(h, header.block_size);
      reserved_.fetch_sub(int64_t(header.block_size), std::memory_order_relaxed);
      return;
    }
    free_.emplace(header.block_size, h);
    cached_ += header.block_size;
  }

  // A cached block of at least `size` bytes (wasting at most a quarter; `size` becomes its
  // real size), or a fresh mapping.
  void* take_large(size_t& size) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = free_.lower_bound(size);
      if (it != free_.end() && it->first <= size + size / 4) {
        void* p = it->second;
        size = it->first;
        free_.erase(it);
        cached_ -= size;
        return p;
      }
    }
    void* p = size >= kHugePage ? map_huge(size) : map_pages(size);
    if (p) reserved_.fetch_add(int64_t(size), std::memory_order_relaxed);
    return p;
  }

  static void* map_pages(size_t size) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }

  // A 2 MiB-aligned anonymous mapping with transparent huge pages requested.
  static void* map_huge(size_t size) {
    size_t span = size + kHugePage;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    auto start = reinterpret_cast<uintptr_t>(raw);
    uintptr_t aligned = round_up(start, kHugePage);
    if (aligned > start) munmap(raw, aligned - start);
    size_t tail = start + span - (aligned + size);
    if (tail) munmap(reinterpret_cast<void*>(aligned + size), tail);
    madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
    return reinterpret_cast<void*>(aligned);
  }

  std::mutex mutex_;
  std::multimap<size_t, void*> free_;
  size_t cached_ = 0;  // guarded by mutex_, like free_
  std::atomic<int64_t> allocated_{0}, peak_{0}, reserved_{0};
};

Allocator* g_allocators[2] = {&CPUAllocator::instance(), nullptr};

}  // namespace

Allocator* get_allocator(Device device) {
  Allocator* a = g_allocators[int(device.type)];
  if (a) return a;
  // The CUDA backend registers its allocator as it loads, on the first CUDA request.
  require_cuda(str("placing a tensor on '", device.str(), "'").c_str());
  a = g_allocators[int(device.type)];
  EMBER_CHECK(a, DeviceUnavailableError, "no allocator for device '", device.str(), "'");
  return a;
}

void register_allocator(DeviceType type, Allocator* allocator) { g_allocators[int(type)] = allocator; }

MemoryStats cpu_memory_stats() { return CPUAllocator::instance().stats(); }
void reset_cpu_peak_memory_stats() { CPUAllocator::instance().reset_peak(); }
void cpu_empty_cache() { CPUAllocator::instance().empty_cache(); }

}  // namespace ember

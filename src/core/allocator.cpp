// The CPU allocator. Small blocks come from malloc. Large blocks are mapped on huge pages and
// cached after free (bounded), because first-touching fresh memory costs ~2.4 us per 4 KiB page:
// a loop that allocates a 64 MiB result each step would otherwise spend most of its time faulting.
#include "ember/allocator.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

#include "ember/errors.h"

namespace ember {

namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kHeader = kAlignment;       // keeps the payload 64-byte aligned
constexpr size_t kLargeBlock = 1 << 20;      // from 1 MiB on, blocks are mapped and cached
constexpr size_t kHugePage = 2 << 20;
constexpr size_t kMaxCached = size_t(2) << 30;

struct BlockHeader {
  size_t requested;   // bytes the tensor asked for
  size_t block_size;  // bytes reserved, header included
  bool large;
};

size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

class CPUAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    size_t total = kHeader + nbytes;
    bool large = total >= kLargeBlock;
    size_t block_size = large ? round_up(total, kHugePage) : round_up(total, kAlignment);
    void* base = large ? take_large(block_size) : std::aligned_alloc(kAlignment, block_size);  // may grow block_size
    if (!base) {
      throw Error(str("DefaultCPUAllocator: not enough memory: you tried to allocate ", nbytes, " bytes."));
    }
    *static_cast<BlockHeader*>(base) = {nbytes, block_size, large};
    note_alloc(nbytes, block_size, large);
    return DataPtr(static_cast<char*>(base) + kHeader, base, &CPUAllocator::release, kCPU);
  }

  MemoryStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {allocated_, peak_, reserved_, cached_};
  }

  void reset_peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    peak_ = allocated_;
  }

  void empty_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [size, ptr] : free_) {
      munmap(ptr, size);
      reserved_ -= int64_t(size);
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
    std::lock_guard<std::mutex> lock(mutex_);
    allocated_ += int64_t(nbytes);
    peak_ = std::max(peak_, allocated_);
    if (!large) reserved_ += int64_t(block_size);
  }

  void free_block(BlockHeader* h) {
    BlockHeader header = *h;
    std::lock_guard<std::mutex> lock(mutex_);
    allocated_ -= int64_t(header.requested);
    if (!header.large) {
      reserved_ -= int64_t(header.block_size);
      std::free(h);
      return;
    }
    if (cached_ + header.block_size > kMaxCached) {
      munmap(h, header.block_size);
      reserved_ -= int64_t(header.block_size);
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
    void* p = map_huge(size);
    if (p) {
      std::lock_guard<std::mutex> lock(mutex_);
      reserved_ += int64_t(size);
    }
    return p;
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
  size_t cached_ = 0;
  int64_t allocated_ = 0, peak_ = 0, reserved_ = 0;
};

Allocator* g_allocators[2] = {&CPUAllocator::instance(), nullptr};

}  // namespace

Allocator* get_allocator(Device device) {
  Allocator* a = g_allocators[int(device.type)];
  if (!a) {
    throw DeviceUnavailableError(str("Ember was built without CUDA support (or no CUDA device is present): cannot ",
                                     "place a tensor on '", device.str(), "'"));
  }
  return a;
}

void register_allocator(DeviceType type, Allocator* allocator) { g_allocators[int(type)] = allocator; }

MemoryStats cpu_memory_stats() { return CPUAllocator::instance().stats(); }
void reset_cpu_peak_memory_stats() { CPUAllocator::instance().reset_peak(); }
void cpu_empty_cache() { CPUAllocator::instance().empty_cache(); }

}  // namespace ember

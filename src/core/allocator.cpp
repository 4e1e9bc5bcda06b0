#include "ember/allocator.h"

#include <atomic>
#include <cstdlib>
#include <new>

#include "ember/errors.h"

namespace ember {

namespace {

constexpr size_t kAlignment = 64;

std::atomic<int64_t> g_allocated{0};
std::atomic<int64_t> g_peak{0};

// Header kept before each CPU block so the deleter knows the size for accounting.
struct BlockHeader {
  size_t nbytes;
};
constexpr size_t kHeader = kAlignment;  // keeps the payload 64-byte aligned

void cpu_free(void* ctx) {
  auto* base = static_cast<char*>(ctx);
  g_allocated.fetch_sub(int64_t(reinterpret_cast<BlockHeader*>(base)->nbytes), std::memory_order_relaxed);
  std::free(base);
}

class CPUAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    void* base = std::aligned_alloc(kAlignment, (kHeader + nbytes + kAlignment - 1) / kAlignment * kAlignment);
    if (!base) {
      throw Error(str("DefaultCPUAllocator: not enough memory: you tried to allocate ", nbytes, " bytes."));
    }
    reinterpret_cast<BlockHeader*>(base)->nbytes = nbytes;
    int64_t now = g_allocated.fetch_add(int64_t(nbytes), std::memory_order_relaxed) + int64_t(nbytes);
    int64_t peak = g_peak.load(std::memory_order_relaxed);
    while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
    return DataPtr(static_cast<char*>(base) + kHeader, base, &cpu_free, kCPU);
  }
};

CPUAllocator g_cpu_allocator;
Allocator* g_allocators[2] = {&g_cpu_allocator, nullptr};

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

MemoryStats cpu_memory_stats() { return {g_allocated.load(), g_peak.load()}; }
void reset_cpu_peak_memory_stats() { g_peak.store(g_allocated.load()); }

}  // namespace ember

// Allocators: one per device type. A DataPtr owns memory through a deleter and its context.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

#include "ember/device.h"

namespace ember {

// Owning pointer to device memory; `deleter(ctx)` frees it. `ctx` may differ from `data`
// (e.g. a Python object kept alive for a tensor that borrows a numpy array).
class DataPtr {
 public:
  using Deleter = void (*)(void*);
  DataPtr() = default;
  DataPtr(void* data, void* ctx, Deleter deleter, Device device)
      : data_(data), ctx_(ctx), deleter_(deleter), device_(device) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& o) noexcept { *this = std::move(o); }
  DataPtr& operator=(DataPtr&& o) noexcept {
    if (this != &o) {
      reset();
      data_ = std::exchange(o.data_, nullptr);
      ctx_ = std::exchange(o.ctx_, nullptr);
      deleter_ = std::exchange(o.deleter_, nullptr);
      device_ = o.device_;
    }
    return *this;
  }
  ~DataPtr() { reset(); }

  void* get() const { return data_; }
  void* context() const { return ctx_; }
  Device device() const { return device_; }
  void reset() {
    if (deleter_) deleter_(ctx_);
    data_ = ctx_ = nullptr;
    deleter_ = nullptr;
  }

 private:
  void* data_ = nullptr;
  void* ctx_ = nullptr;
  Deleter deleter_ = nullptr;
  Device device_;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // `device`: where (its index, for devices that have several; an index-less CUDA device means the current one).
  virtual DataPtr allocate(size_t nbytes, Device device) = 0;
};

// The allocator for a device; raises a clear error for devices this build lacks.
Allocator* get_allocator(Device device);
void register_allocator(DeviceType type, Allocator* allocator);

// CPU memory statistics, like torch.cuda's: bytes held by live tensors, their peak since the
// last reset, bytes reserved from the system (live blocks and the cache) and bytes cached.
struct MemoryStats {
  int64_t allocated_bytes;
  int64_t peak_allocated_bytes;
  int64_t reserved_bytes;
  size_t cached_bytes;
};
MemoryStats cpu_memory_stats();
void reset_cpu_peak_memory_stats();
// Returns cached free blocks to the system.
void cpu_empty_cache();

}  // namespace ember

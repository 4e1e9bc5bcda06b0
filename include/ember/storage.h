// Storage: a ref-counted buffer shared by every view of it.
#pragma once
#include <memory>

#include "ember/allocator.h"

namespace ember {

struct StorageImpl {
  DataPtr data_ptr;
  size_t nbytes = 0;
  bool resizable = true;  // false for memory borrowed from numpy or DLPack
  uint32_t version = 0;   // bumped by in-place writes (autograd checks saved tensors against it)
};

class Storage {
 public:
  Storage() = default;
  explicit Storage(std::shared_ptr<StorageImpl> impl) : impl_(std::move(impl)) {}
  static Storage allocate(size_t nbytes, Device device);
  static Storage borrow(DataPtr data, size_t nbytes);
  // Page-locked host memory from the CUDA backend (DeviceUnavailableError without one).
  static Storage allocate_pinned(size_t nbytes);

  void* data() const { return impl_->data_ptr.get(); }
  size_t nbytes() const { return impl_->nbytes; }
  Device device() const { return impl_->data_ptr.device(); }
  bool defined() const { return impl_ != nullptr; }
  bool is_alias_of(const Storage& o) const { return impl_ == o.impl_; }
  long use_count() const { return impl_.use_count(); }
  StorageImpl* impl() const { return impl_.get(); }

 private:
  std::shared_ptr<StorageImpl> impl_;
};

}  // namespace ember

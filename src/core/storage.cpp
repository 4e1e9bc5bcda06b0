#include "ember/storage.h"

#include "cuda_hooks.h"

namespace ember {

Storage Storage::allocate(size_t nbytes, Device device) {
  auto impl = std::make_shared<StorageImpl>();
  impl->data_ptr = get_allocator(device)->allocate(nbytes, device);
  impl->nbytes = nbytes;
  return Storage(std::move(impl));
}

Storage Storage::allocate_pinned(size_t nbytes) {
  void* p = require_cuda("pin_memory").alloc_pinned(nbytes);
  auto impl = std::make_shared<StorageImpl>();
  impl->data_ptr = DataPtr(p, p, [](void* q) { cuda_hooks()->free_pinned(q); }, kCPU);
  impl->nbytes = nbytes;
  return Storage(std::move(impl));
}

Storage Storage::borrow(DataPtr data, size_t nbytes) {
  auto impl = std::make_shared<StorageImpl>();
  impl->data_ptr = std::move(data);
  impl->nbytes = nbytes;
  impl->resizable = false;
  return Storage(std::move(impl));
}

}  // namespace ember

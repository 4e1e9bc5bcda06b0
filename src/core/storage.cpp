#include "ember/storage.h"

namespace ember {

Storage Storage::allocate(size_t nbytes, Device device) {
  auto impl = std::make_shared<StorageImpl>();
  impl->data_ptr = get_allocator(device)->allocate(nbytes, device);
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

// Copies: copy_, fill_, contiguous, clone and dtype/device conversion.
#include "../cpu/copy_kernel.h"
#include "ember/creation.h"
#include "ember/layout.h"

namespace ember {


Tensor& Tensor::copy_(const Tensor& src) {
  DimVector shape = broadcast_shapes(sizes(), src.sizes());
  EMBER_CHECK(IntArrayRef(shape).size() == sizes().size() && std::equal(shape.begin(), shape.end(), sizes().begin()),
              Error, "output with shape ", IntList{sizes().data(), sizes().size()},
              " doesn't match the broadcast shape ", IntList{shape.data(), shape.size()});
  check_no_internal_overlap(*this);
  if (is_same(src)) return *this;
  EMBER_CHECK(device().is_cpu() && src.device().is_cpu(), Error, "copy_ between ", device().str(), " and ",
              src.device().str(), " needs CUDA support");
  Tensor source = src.expand(sizes());
  switch (overlap(*this, src)) {
    case Overlap::Full:
      if (dtype() == src.dtype()) return *this;
      source = src.clone().expand(sizes());
      break;
    case Overlap::Partial:
      throw Error("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                  "single memory location. Please clone() the tensor before performing the operation.");
    case Overlap::TooHard:  // unknown aliasing: go through a temporary rather than risk it
      source = src.clone().expand(sizes());
      break;
    case Overlap::None:
      break;
  }
  cpu::copy_kernel(*this, source);
  return *this;
}

Tensor& Tensor::fill_(const Scalar& value) {  // overlapping (expanded) targets are fine: one value
  cpu::fill_kernel(*this, value);
  return *this;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  Tensor out = empty(sizes(), TensorOptions(dtype()).with_device(device()));
  cpu::copy_kernel(out, *this);
  return out;
}

Tensor Tensor::clone() const {
  Tensor out = empty_like(*this);
  cpu::copy_kernel(out, *this);
  return out;
}

Tensor Tensor::to(ScalarType new_dtype, bool copy) const {
  if (new_dtype == dtype() && !copy) return *this;
  Tensor out = empty_like(*this, TensorOptions(new_dtype));
  cpu::copy_kernel(out, *this);
  return out;
}

Tensor Tensor::to(Device new_device, bool copy) const {
  if (new_device.type == device().type && !copy) return *this;
  get_allocator(new_device);  // raises for devices this build lacks
  Tensor out = empty_like(*this, TensorOptions(dtype()).with_device(new_device));
  out.copy_(*this);
  return out;
}

}  // namespace ember

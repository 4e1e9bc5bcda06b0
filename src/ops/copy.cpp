// Copies: copy_, fill_, contiguous, clone and dtype/device conversion.
#include "../autograd/formulas.h"
#include "../core/cuda_hooks.h"
#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/quantized.h"
#include "ember/sparse.h"

#include <cstring>

namespace ember {

namespace {

// An in-place write of `value` into `self`: when `value` is not in the graph but self is, torch still records
// the write (node `name`, zero gradient to self's old history), so self keeps requiring grad.
Tensor& write_recorded(Tensor& self, const char* name, const std::function<Tensor()>& value) {
  return autograd::record_in_place(self, [&] {
    Tensor r = value();
    if (r.requires_grad() || !self.requires_grad() || !autograd::is_grad_enabled()) return r;
    r = r.clone();
    autograd::record_overwrite(name, r, self);
    return r;
  });
}

}  // namespace

// A copy between the host and a device (or two devices): a dtype conversion and a broadcast run on the source's
// device, the bytes move through the CUDA backend, and a non-contiguous destination is written from a staging copy.
void copy_between_devices(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const CudaHooks& cuda = require_cuda("copying between devices");
  Tensor staged = src.dtype() == dst.dtype() ? src : src.to(dst.dtype());
  staged = staged.expand(dst.sizes()).contiguous();
  Tensor target = dst.is_contiguous() ? dst : empty(dst.sizes(), dst.options());
  cuda.memcpy(target.data_ptr(), target.device(), staged.data_ptr(), staged.device(),
              size_t(staged.numel()) * staged.element_size(), non_blocking);
  if (!target.is_same(dst)) kernels::copy[dst.device()](dst, target);
}

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) {
  autograd::check_in_place(*this);
  if (has_sparse_layout() || src.has_sparse_layout()) [[unlikely]] {
    sparse_copy_(*this, src);
    return *this;
  }
  if (is_quantized() || src.is_quantized()) [[unlikely]] {
    quantized_copy_(*this, src);
    return *this;
  }
  if (autograd::needs_grad({&src, this}) || autograd::writes_into_graph_view(*this)) {
    return autograd::record_in_place(*this, [&] {
      Tensor r = autograd::untracked([&] { return src.to(dtype(), true).expand(sizes()); });
      if (autograd::needs_grad({&src, this})) autograd::record_copy_into(r, *this, src);
      return r;
    });
  }
  DimVector shape = broadcast_shapes(sizes(), src.sizes());
  EMBER_CHECK(IntArrayRef(shape).size() == sizes().size() && std::equal(shape.begin(), shape.end(), sizes().begin()),
              Error, "output with shape ", int_list(sizes()), " doesn't match the broadcast shape ", int_list(shape));
  check_no_internal_overlap(*this);
  if (is_same(src)) return *this;
  if (device() != src.device()) {
    copy_between_devices(*this, src, non_blocking);
    bump_version();
    return *this;
  }
  Tensor source = src.expand(sizes());
  switch (overlap(*this, src)) {
    case Overlap::Full:
      if (dtype() == src.dtype()) return *this;
      source = src.clone().expand(sizes());
      break;
    case Overlap::Partial:
      check_no_partial_overlap(*this, src);  // raises
      break;
    case Overlap::TooHard:  // unknown aliasing: go through a temporary rather than risk it
      source = src.clone().expand(sizes());
      break;
    case Overlap::None:
      break;
  }
  kernels::copy[device()](*this, source);
  bump_version();
  return *this;
}

Tensor& Tensor::fill_(const Scalar& value) {  // overlapping (expanded) targets are fine: one value
  if (has_sparse_layout()) [[unlikely]] {  // torch fills a CSR tensor's stored values; COO refuses
    if (!is_sparse_csr()) throw_sparse_unsupported(*this, "fill_.Scalar");
    autograd::check_in_place(*this);
    EMBER_CHECK(!autograd::needs_grad({this}), NotImplementedError, "fill_ of a sparse_csr tensor that requires grad");
    impl_->sparse->values.fill_(value);
    bump_version();
    return *this;
  }
  if (is_quantized()) [[unlikely]] return copy_(full(sizes(), value, TensorOptions(kFloat32).with_device(device())));
  autograd::check_in_place(*this);
  if (autograd::needs_grad({this}) || autograd::writes_into_graph_view(*this)) {
    return write_recorded(*this, "FillBackward2", [&] { return full(sizes(), value, options()); });
  }
  kernels::fill[device()](*this, value);
  bump_version();
  return *this;
}

Tensor& Tensor::fill_(const Tensor& value) {
  if (has_sparse_layout()) [[unlikely]] throw_sparse_unsupported(*this, "fill_");
  EMBER_CHECK(value.dim() == 0, Error, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions.");
  if (is_quantized()) [[unlikely]] return fill_(value.item());  // quantized with self's parameters
  // torch fills through copy_: the value converts to self's dtype unchecked (-3 gives 253 in uint8)
  Scalar number = autograd::untracked([&] { return value.to(dtype()).item(); });
  if (!autograd::needs_grad({&value})) {
    if (!autograd::needs_grad({this}) && !autograd::writes_into_graph_view(*this)) return fill_(number);
    return write_recorded(*this, "FillBackward3", [&] { return full(sizes(), number, options()); });
  }
  autograd::check_in_place(*this);
  return autograd::record_in_place(*this, [&] {
    Tensor r = full(sizes(), number, options());
    autograd::record_fill(r, *this, value);
    return r;
  });
}

Tensor& Tensor::resize_(IntArrayRef new_sizes) {
  EMBER_CHECK(!is_quantized() || !impl_->quantizer->per_channel() || std::ranges::equal(new_sizes, sizes()), Error,
              "resize_ of a per-channel quantized tensor (shape ", int_list(sizes()), " to ", int_list(new_sizes),
              ") would leave channels without their scale");
  int64_t n = checked_numel(new_sizes);
  DimVector new_strides = contiguous_strides(new_sizes);
  size_t needed = storage_nbytes(new_sizes, element_size(), storage_offset());
  EMBER_CHECK(!has_sparse_layout(), Error, "resize_ of a ", layout_name(layout()), " tensor is not supported");
  StorageImpl& storage = *impl_->storage.impl();
  if (n > 0 && needed > storage.nbytes) {
    EMBER_CHECK(storage.resizable, Error, "Trying to resize storage that is not resizable");
    DataPtr grown = get_allocator(device())->allocate(needed, device());
    if (device().is_cpu()) std::memcpy(grown.get(), storage.data_ptr.get(), storage.nbytes);
    else require_cuda("resize_").memcpy(grown.get(), device(), storage.data_ptr.get(), device(), storage.nbytes, false);
    storage.data_ptr = std::move(grown);  // every view of the storage sees the new buffer, as in torch
    storage.nbytes = needed;
  }
  impl_->sizes = DimVector(new_sizes);
  impl_->strides = std::move(new_strides);
  impl_->refresh_metadata();
  return *this;
}

void resize_output(Tensor out, IntArrayRef sizes) {
  if (std::equal(sizes.begin(), sizes.end(), out.sizes().begin(), out.sizes().end())) return;
  if (out.numel() != 0) {
    warn(str("An output with one or more elements was resized since it had shape ", int_list(out.sizes()),
             ", which does not match the required output shape ", int_list(sizes), ". This behavior is deprecated, "
             "and in a future PyTorch release outputs will not be resized unless they have zero elements. You can "
             "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0)."));
  }
  out.resize_(sizes);
}

void resize_output_like(Tensor out, const Tensor& result) {
  bool resized = !std::equal(result.sizes().begin(), result.sizes().end(), out.sizes().begin(), out.sizes().end());
  resize_output(out, result.sizes());
  if (resized && is_non_overlapping_and_dense(result.sizes(), result.strides())) {
    out.impl()->strides = DimVector(result.strides());
    out.impl()->refresh_metadata();
  }
}

Tensor& Tensor::zero_() {
  if (has_sparse_layout()) {
    autograd::check_in_place(*this);
    if (autograd::needs_grad({this})) return write_recorded(*this, "ZeroBackward0", [&] { return sparse_zeros_like(*this); });
    sparse_zero_(*this);
    return *this;
  }
  if (is_quantized()) [[unlikely]] throw_quantized_unsupported(dtype());  // torch has fill_, not zero_
  return fill_(0);
}

Tensor Tensor::contiguous() const {
  EMBER_CHECK(!has_sparse_layout(), Error, "unsupported memory format option Contiguous");
  if (is_contiguous()) return *this;
  if (is_quantized()) return quantized_clone(*this, MemoryFormat::Contiguous);
  Tensor out = empty(sizes(), options());
  kernels::copy[out.device()](out, *this);
  if (autograd::needs_grad({this})) autograd::record_copy("CloneBackward0", out, *this);
  return out;
}

bool Tensor::is_contiguous(MemoryFormat format) const {
  if (format == MemoryFormat::ChannelsLast || format == MemoryFormat::ChannelsLast3d)
    return dim() == (format == MemoryFormat::ChannelsLast ? 4 : 5) && is_channels_last_contiguous(sizes(), strides());
  return is_contiguous();
}

Tensor Tensor::contiguous(MemoryFormat format) const {
  if (is_contiguous(format)) return *this;
  EMBER_CHECK(format != MemoryFormat::Preserve, Error, "preserve memory format is unsupported by the contiguous operator");
  return clone(format);
}

Tensor Tensor::clone(MemoryFormat format) const {
  if (has_sparse_layout()) {
    EMBER_CHECK(format == MemoryFormat::Preserve, Error, "unsupported memory format option ",
                format == MemoryFormat::Contiguous ? "Contiguous" : "ChannelsLast");
    return sparse_clone(*this);
  }
  if (is_quantized()) return quantized_clone(*this, format);
  Tensor out = empty_like(*this, options(), format);
  kernels::copy[out.device()](out, *this);
  if (autograd::needs_grad({this})) autograd::record_copy("CloneBackward0", out, *this);
  return out;
}

Tensor Tensor::clone() const {
  if (has_sparse_layout()) return sparse_clone(*this);
  if (is_quantized()) return quantized_clone(*this, MemoryFormat::Contiguous);  // torch's quantized default
  Tensor out = empty_like(*this);
  kernels::copy[out.device()](out, *this);
  if (autograd::needs_grad({this})) autograd::record_copy("CloneBackward0", out, *this);
  return out;
}

Tensor Tensor::to(ScalarType new_dtype, bool copy, MemoryFormat format) const {
  if (has_sparse_layout()) return copy && new_dtype == dtype() ? clone() : sparse_to(*this, new_dtype, std::nullopt);
  if (new_dtype == dtype() && !copy && (format == MemoryFormat::Preserve || is_contiguous(format))) return *this;
  if (is_quantized() && new_dtype == dtype()) return clone(format);
  EMBER_CHECK(!is_quantized(), Error, "a quantized tensor (", dtype_name(dtype()), ") does not convert to ",
              dtype_name(new_dtype), " with to(); dequantize() gives its float32 values");
  Tensor out = empty_like(*this, options().with_dtype(new_dtype), format);
  kernels::copy[out.device()](out, *this);
  // A conversion to an integer or bool dtype is not differentiable: its result never requires grad.
  if (ember::is_floating_point(new_dtype) && autograd::needs_grad({this})) autograd::record_copy("ToCopyBackward0", out, *this);
  return out;
}

Tensor Tensor::to(Device new_device, bool copy, bool non_blocking) const {
  bool same = new_device.type == device().type && (!new_device.has_index() || new_device.index == device().index);
  if (same && !copy) return *this;
  if (has_sparse_layout()) return same ? clone() : sparse_to(*this, std::nullopt, new_device);
  Tensor out = empty_like(*this, options().with_device(new_device));
  out.copy_(*this, non_blocking);
  return out;
}

Tensor Tensor::pin_memory() const {
  EMBER_CHECK(device().is_cpu(), Error, "cannot pin 'torch.cuda.", legacy_name(dtype()),
              "Tensor' only dense CPU tensors can be pinned");
  if (is_pinned()) return *this;
  Tensor out = empty_strided(sizes(), strides(), options().pinned_memory(true));
  out.copy_(*this);
  return out;
}

bool Tensor::is_pinned() const {
  const CudaHooks* cuda = loaded_cuda_hooks();  // nothing is pinned before the backend loads
  return device().is_cpu() && cuda && storage().data() && cuda->is_pinned(storage().data());
}

}  // namespace ember

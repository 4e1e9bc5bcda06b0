// Tensor: a cheap handle to a TensorImpl (storage + sizes, strides, offset, dtype).
#pragma once
#include <atomic>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/device.h"
#include "ember/memory_format.h"
#include "ember/dim_vector.h"
#include "ember/dtype.h"
#include "ember/safe_size.h"
#include "ember/scalar.h"
#include "ember/storage.h"

namespace ember {

namespace autograd {
struct AutogradMeta;
struct Node;
}  // namespace autograd
namespace indexing {
class TensorIndex;  // ember/indexing.h
}  // namespace indexing
class Tensor;
struct Quantizer;    // ember/quantized.h
struct SparseParts;  // ember/sparse.h

// torch.layout: strided tensors own their elements; sparse ones (ember/sparse.h) hold indices and values.
enum class Layout : int8_t { Strided, SparseCoo, SparseCsr };

struct TensorImpl {
  Storage storage;
  DimVector sizes;
  DimVector strides;
  int64_t storage_offset = 0;
  int64_t numel = 1;
  ScalarType dtype = kFloat32;
  bool is_contiguous = true;
  bool requires_grad = false;      // a leaf that requires grad (non-leaves have autograd->grad_fn)
  bool is_wrapped_number = false;  // a 0-dim tensor made from a Python number (type promotion)
  bool is_parameter = false;       // a module's parameter (in Python, an nn.Parameter)
  // The Python object wrapping this tensor, returned again while it lives (torch's identity:
  // `m.weight is m.weight`). The bindings set both under the GIL; `py_handle` is the Tensor inside
  // that object, and its destruction or reassignment clears it (py_object is valid only while it is set).
  std::atomic<const Tensor*> py_handle{nullptr};
  void* py_object = nullptr;
  // The Python ember.Size of `sizes`, made by the bindings on first read of .shape; any change
  // of sizes must go through refresh_metadata(), which drops it.
  std::shared_ptr<void> py_size;
  std::unique_ptr<autograd::AutogradMeta> autograd;  // grad, grad_fn, ...; null until first needed
  // For a view: the tensor it views (the root of a chain of views); autograd rewrites the base's
  // history when the view is written in place (CopySlices).
  std::shared_ptr<TensorImpl> view_base;
  // The scale and zero point(s) of a quantized tensor (dtype qint8, quint8 or qint32); null otherwise.
  std::shared_ptr<const Quantizer> quantizer;
  // The indices and values of a sparse tensor (its storage is empty); null for a strided tensor.
  std::shared_ptr<SparseParts> sparse;

  TensorImpl(Storage s, DimVector sz, DimVector st, int64_t offset, ScalarType dt);
  ~TensorImpl();
  // Recomputes numel and contiguity (and drops cached shape objects) after sizes/strides change.
  void refresh_metadata();
};

// What a new tensor is made as; fluent as torch's: TensorOptions().dtype(kFloat).device(kCPU).requires_grad(true).
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}
  TensorOptions(Device d) : device_(d) {}

  TensorOptions dtype(std::optional<ScalarType> t) const { auto o = *this; o.dtype_ = t; return o; }
  TensorOptions device(Device d) const { auto o = *this; o.device_ = d; return o; }
  TensorOptions requires_grad(bool r) const { auto o = *this; o.requires_grad_ = r; return o; }
  TensorOptions pinned_memory(bool p) const { auto o = *this; o.pinned_memory_ = p; return o; }
  TensorOptions with_dtype(ScalarType t) const { return dtype(t); }
  TensorOptions with_device(Device d) const { return device(d); }
  TensorOptions with_requires_grad(bool r) const { return requires_grad(r); }

  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  bool has_dtype() const { return dtype_.has_value(); }
  ScalarType dtype_or_default() const { return dtype_.value_or(default_dtype()); }
  Device device() const { return device_; }
  bool requires_grad() const { return requires_grad_; }
  bool pinned_memory() const { return pinned_memory_; }

 private:
  std::optional<ScalarType> dtype_;
  Device device_ = kCPU;
  bool requires_grad_ = false;
  bool pinned_memory_ = false;
};
// Free-standing starters, as torch::dtype(kFloat).requires_grad(true).
inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }
inline TensorOptions device(Device d) { return TensorOptions(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  // The special members unlink a Python object whose Tensor this was (TensorImpl::py_handle).
  Tensor(const Tensor&) = default;
  Tensor(Tensor&& o) noexcept : impl_(std::move(o.impl_)) { unlink_python(&o); }
  Tensor& operator=(const Tensor& o) {
    if (this != &o) { unlink_python(this); impl_ = o.impl_; }
    return *this;
  }
  Tensor& operator=(Tensor&& o) noexcept {
    if (this != &o) { unlink_python(this); impl_ = std::move(o.impl_); unlink_python(&o); }
    return *this;
  }
  ~Tensor() { unlink_python(this); }
  // A tensor that views `storage` with the given geometry. Quantized dtypes raise torch's empty_strided error:
  // they are made only with their quantizer (ember/quantized.h) or as views (make_view_of).
  static Tensor make(Storage storage, DimVector sizes, DimVector strides, int64_t offset,
                     ScalarType dtype);
  // A tensor over `base`'s storage with new geometry, of base's dtype and quantizer (views, detach).
  static Tensor make_view_of(const Tensor& base, DimVector sizes, DimVector strides, int64_t offset);

  // ---- properties
  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& shared_impl() const { return impl_; }
  IntArrayRef sizes() const { return impl_->sizes; }
  IntArrayRef strides() const { return impl_->strides; }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return int64_t(impl_->sizes.size()); }
  int64_t numel() const { return impl_->numel; }
  ScalarType dtype() const { return impl_->dtype; }
  ScalarType scalar_type() const { return impl_->dtype; }
  TensorOptions options() const { return TensorOptions(dtype()).device(device()); }
  Device device() const { return impl_->storage.device(); }
  int64_t storage_offset() const { return impl_->storage_offset; }
  bool is_contiguous() const { return impl_->is_contiguous; }
  bool is_contiguous(MemoryFormat format) const;  // Preserve asks for plain contiguity, as torch
  size_t element_size() const { return ember::element_size(dtype()); }
  size_t nbytes() const { return size_t(numel()) * element_size(); }
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  bool is_quantized() const { return ember::is_quantized(dtype()); }
  Layout layout() const;
  bool is_sparse() const;      // COO, as torch's is_sparse
  bool is_sparse_csr() const;
  bool has_sparse_layout() const { return impl_->sparse != nullptr; }  // COO or CSR: no elements of its own
  const Storage& storage() const {
    if (impl_->sparse) [[unlikely]] throw_no_storage_access();
    return impl_->storage;
  }
  void* data_ptr() const {
    if (impl_->sparse) [[unlikely]] throw_no_storage();
    return static_cast<char*>(impl_->storage.data()) + impl_->storage_offset * int64_t(element_size());
  }
  template <typename T>
  T* data_ptr() const { return static_cast<T*>(data_ptr()); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  bool is_parameter() const { return impl_->is_parameter; }

  Scalar item() const;
  template <typename T>
  T item() const { return item().template to<T>(); }  // x.item<float>(), as libtorch
  std::string repr() const;  // torch's repr

  // ---- autograd (the engine is in ember/autograd.h)
  bool requires_grad() const;
  Tensor& requires_grad_(bool requires_grad = true);
  bool is_leaf() const;
  bool is_view() const { return impl_->view_base != nullptr; }
  Tensor _base() const;  // the tensor a view was made from (the root of a chain of views); undefined if not a view
  Tensor grad() const;  // undefined until a backward pass reaches this leaf (or retain_grad())
  void set_grad(const Tensor& grad) const;
  std::shared_ptr<autograd::Node> grad_fn() const;
  uint32_t output_nr() const;
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = {}, bool create_graph = false) const;
  Tensor detach() const;  // shares storage (and version counter), no history
  Tensor& detach_();
  void retain_grad() const;
  bool retains_grad() const;
  // In-place writes bump the counter shared by all views of the storage; saved tensors check it.
  uint32_t version() const { return impl_->storage.impl()->version; }
  void bump_version() const { ++impl_->storage.impl()->version; }
  autograd::AutogradMeta& autograd_meta() const;  // created on first use

  // ---- views (share storage with this tensor)
  Tensor view(IntArrayRef sizes) const;
  Tensor view(ScalarType dtype) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor mT() const;
  Tensor permute(IntArrayRef dims) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor squeeze(IntArrayRef dims) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
               int64_t step = 1) const;
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor alias() const;

  // ---- copies
  Tensor contiguous() const;
  Tensor contiguous(MemoryFormat format) const;  // Contiguous or ChannelsLast(3d)
  Tensor clone() const;
  Tensor clone(MemoryFormat format) const;
  // A copy when the dtype, `copy` or a memory format the tensor is not in asks for one.
  Tensor to(ScalarType dtype, bool copy = false, MemoryFormat format = MemoryFormat::Preserve) const;
  // Between devices, `non_blocking` lets a copy from or to pinned host memory return before it finishes.
  Tensor to(Device device, bool copy = false, bool non_blocking = false) const;
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  // A copy in page-locked host memory (a CPU tensor that copies to and from CUDA devices asynchronously).
  Tensor pin_memory() const;
  bool is_pinned() const;
  // Gives the tensor `sizes` with contiguous strides, growing its storage (contents kept) if needed.
  Tensor& resize_(IntArrayRef sizes);
  Tensor& fill_(const Scalar& value);
  Tensor& fill_(const Tensor& value);  // a 0-dim value (FillBackward3: its gradient is the sum)
  Tensor& zero_();

  // ---- sparse tensors (ember/sparse.h)
  int64_t sparse_dim() const;
  int64_t dense_dim() const;
  int64_t _nnz() const;
  Tensor indices() const;   // COO, coalesced only (torch's rule); _indices() any
  Tensor _indices() const;
  Tensor values() const;    // COO coalesced, or CSR
  Tensor _values() const;
  Tensor crow_indices() const;
  Tensor col_indices() const;
  bool is_coalesced() const;
  Tensor coalesce() const;
  Tensor to_dense(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor to_sparse(std::optional<int64_t> sparse_dim = std::nullopt) const;  // COO
  Tensor to_sparse(Layout layout) const;
  Tensor to_sparse_csr() const;

  // ---- the ops' methods and operators
#include "ember/tensor_methods.h"

 private:
  // A sparse tensor's elements are in its parts: reading its storage or data pointer raises (torch's errors).
  [[noreturn]] static void throw_no_storage();
  [[noreturn]] static void throw_no_storage_access();
  void unlink_python(const Tensor* handle) const noexcept {
    if (impl_ && impl_->py_handle.load(std::memory_order_relaxed) == handle)
      impl_->py_handle.store(nullptr, std::memory_order_relaxed);
  }
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);
std::ostream& operator<<(std::ostream& os, IntArrayRef sizes);  // [3, 4], as libtorch
std::ostream& operator<<(std::ostream& os, ScalarType dtype);   // Float, as libtorch

// Wraps a negative dim and checks its range, raising IndexError as torch does.
int64_t wrap_dim(int64_t dim, int64_t ndim);
// Resizes an out= tensor to `sizes` as torch does: silently when it is empty, with a warning otherwise.
void resize_output(Tensor out, IntArrayRef sizes);
// resize_output to result's sizes; a resized out takes result's layout when that is dense (torch's iterator
// lays out a resized output as a fresh one).
void resize_output_like(Tensor out, const Tensor& result);
// Product of sizes; raises torch's errors for a negative size and for an overflowing product.
int64_t checked_numel(IntArrayRef sizes);

}  // namespace ember

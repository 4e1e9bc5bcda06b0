#include "ember/sparse.h"
#include "ember/tensor.h"

#include "ember/autograd.h"
#include "ember/host.h"
#include "ember/print.h"
#include "ember/quantized.h"

namespace ember {

TensorImpl::TensorImpl(Storage s, DimVector sz, DimVector st, int64_t offset, ScalarType dt)
    : storage(std::move(s)), sizes(std::move(sz)), strides(std::move(st)), storage_offset(offset), dtype(dt) {
  refresh_metadata();
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::refresh_metadata() {
  py_size.reset();
  int64_t n = safe_numel(sizes);
  numel = n;
  // torch's rule: size-1 dims may have any stride; empty tensors are contiguous.
  bool contiguous = true;
  if (n != 0) {
    int64_t expected = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
      if (sizes[i] == 1) continue;
      if (strides[i] != expected) { contiguous = false; break; }
      expected *= sizes[i];
    }
  }
  is_contiguous = contiguous && !sparse;  // a sparse tensor has no elements of its own to lay out
}

Tensor Tensor::make(Storage storage, DimVector sizes, DimVector strides, int64_t offset, ScalarType dtype) {
  EMBER_CHECK(!ember::is_quantized(dtype), Error, "empty_strided not supported on quantized tensors yet see "
              "https://github.com/pytorch/pytorch/issues/74540");
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), std::move(sizes), std::move(strides), offset, dtype));
}

Tensor Tensor::make_view_of(const Tensor& base, DimVector sizes, DimVector strides, int64_t offset) {
  if (base.has_sparse_layout()) [[unlikely]] throw_sparse_unsupported(base, "view");
  if (base.is_quantized()) return quantized_view(base, std::move(sizes), std::move(strides), offset);
  return make(base.storage(), std::move(sizes), std::move(strides), offset, base.dtype());
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = ndim == 0 ? 1 : ndim;  // 0-dim tensors accept dims -1 and 0
  if (dim < -n || dim >= n) {
    throw IndexError(str("Dimension out of range (expected to be in range of [", -n, ", ", n - 1,
                         "], but got ", dim, ")"));
  }
  return dim < 0 ? dim + n : dim;
}

namespace {

// Product of sizes in uint64_t, as torch's safe_multiplies_u64; true on overflow.
bool product_overflows(IntArrayRef sizes, uint64_t* out) {
  uint64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= mul_overflows<uint64_t>(n, uint64_t(s), &n);
  *out = n;
  return overflow;
}

constexpr uint64_t kMaxSize = uint64_t(INT64_MAX);

}  // namespace

int64_t safe_numel(IntArrayRef sizes) {
  uint64_t n;
  EMBER_CHECK(!product_overflows(sizes, &n) && n <= kMaxSize, Error, "numel: integer multiplication overflow");
  return int64_t(n);
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t s = 1;
  bool overflow = false;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    if (i > 0) overflow |= mul_overflows<int64_t>(s, std::max<int64_t>(sizes[i], 1), &s);
  }
  EMBER_CHECK(!overflow, Error, "Stride calculation overflowed");
  return strides;
}

size_t storage_nbytes(IntArrayRef sizes, size_t itemsize, int64_t offset) {
  uint64_t n;
  bool overflow = product_overflows(sizes, &n);
  overflow |= add_overflows<uint64_t>(n, uint64_t(offset), &n);
  overflow |= mul_overflows<uint64_t>(n, itemsize, &n);
  EMBER_CHECK(!overflow && n <= kMaxSize, Error, "Storage size calculation overflowed with sizes=", int_list(sizes));
  return n;
}

size_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, size_t itemsize, int64_t offset) {
  uint64_t n = 1;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    uint64_t extent;
    overflow |= mul_overflows<uint64_t>(uint64_t(strides[i]), uint64_t(sizes[i]) - 1, &extent);
    overflow |= add_overflows<uint64_t>(n, extent, &n);
  }
  overflow |= add_overflows<uint64_t>(n, uint64_t(offset), &n);
  overflow |= mul_overflows<uint64_t>(n, itemsize, &n);
  EMBER_CHECK(!overflow && n <= kMaxSize, Error, "Storage size calculation overflowed with sizes=", int_list(sizes),
              " and strides=", int_list(strides));
  return n;
}

int64_t checked_numel(IntArrayRef sizes) {
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, Error, "Trying to create tensor with negative dimension ", s, ": ", int_list(sizes));
  }
  return safe_numel(sizes);
}

int64_t Tensor::size(int64_t d) const { return impl_->sizes[wrap_dim(d, dim())]; }
int64_t Tensor::stride(int64_t d) const { return impl_->strides[wrap_dim(d, dim())]; }

Scalar Tensor::item() const {
  EMBER_CHECK(numel() == 1, Error, "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  if (!device().is_cpu()) return host_copy(*this).item();
  if (is_quantized()) return dequantize(*this).item();  // the value it stands for, as torch
  if (has_sparse_layout()) return to_dense().item();
  return visit_dtype(dtype(), [&]<typename T>(T) -> Scalar {
    T v = *data_ptr<T>();
    if constexpr (std::is_same_v<T, bool>) return Scalar(v);
    else if constexpr (std::is_integral_v<T>) return Scalar(int64_t(v));
    else return Scalar(convert<double>(v));
  });
}

std::string Tensor::repr() const { return tensor_repr(*this); }

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << tensor_repr(t); }

}  // namespace ember

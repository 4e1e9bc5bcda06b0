// Sparse tensors: construction with torch's invariant checks, the accessors, and the dense/sparse conversions.
#include <algorithm>
#include <numeric>

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/scatter.h"
#include "ember/shape_utils.h"
#include "ember/sparse.h"
#include "sparse_internal.h"

namespace ember {

namespace {

const char* layout_title(Layout layout) {
  return layout == Layout::SparseCoo ? "Sparse" : layout == Layout::SparseCsr ? "SparseCsr" : "Strided";
}

// torch's "<what> expected sparse coordinate tensor layout but got Strided".
void check_layout(const Tensor& t, Layout want, const char* what) {
  EMBER_CHECK(t.layout() == want, Error, what, " expected ",
              want == Layout::SparseCoo ? "sparse coordinate" : "sparse row compressed", " tensor layout but got ",
              layout_title(t.layout()));
}

// An index tensor's values on the host, contiguous (its checks and sorts read them).
Tensor host_int64(const Tensor& t) { return t.to(kCPU).to(kInt64).contiguous(); }

void check_coo_bounds(const Tensor& indices, IntArrayRef sizes) {
  Tensor host = host_int64(indices);
  const int64_t* p = host.data_ptr<int64_t>();
  int64_t nnz = host.size(1);
  for (int64_t d = 0; d < host.size(0); ++d) {
    for (int64_t k = 0; k < nnz; ++k) {
      int64_t i = p[d * nnz + k];
      EMBER_CHECK(i >= 0, Error, "found negative index ", i, " for dim ", d);
      EMBER_CHECK(i < sizes[size_t(d)], Error, "size is inconsistent with indices: for dim ", d, ", size is ",
                  sizes[size_t(d)], " but found index ", i);
    }
  }
}

// The smallest sparse sizes that hold the indices (torch's inference without a size).
DimVector inferred_sizes(const Tensor& indices) {
  Tensor host = host_int64(indices);
  const int64_t* p = host.data_ptr<int64_t>();
  int64_t nnz = host.size(1);
  DimVector sizes;
  for (int64_t d = 0; d < host.size(0); ++d) {
    int64_t top = -1;
    for (int64_t k = 0; k < nnz; ++k) {
      EMBER_CHECK(p[d * nnz + k] >= 0, Error, "found negative index ", p[d * nnz + k], " for dim ", d);
      top = std::max(top, p[d * nnz + k]);
    }
    sizes.push_back(top + 1);
  }
  return sizes;
}

void check_csr(const Tensor& crow, const Tensor& col, int64_t nrows, int64_t ncols) {
  EMBER_CHECK(crow.numel() == nrows + 1, Error, "crow_indices.shape[-1] must be equal to the number of rows + 1 (=",
              nrows + 1, "), but got ", crow.numel());
  Tensor rows = host_int64(crow), cols = host_int64(col);
  const int64_t* r = rows.data_ptr<int64_t>();
  const int64_t* c = cols.data_ptr<int64_t>();
  EMBER_CHECK(r[0] == 0, Error, "`crow_indices[..., 0] == 0` is not satisfied.");
  EMBER_CHECK(r[nrows] == col.numel(), Error, "`crow_indices[..., -1] == nnz` is not satisfied.");
  for (int64_t k = 0; k < col.numel(); ++k) {
    EMBER_CHECK(c[k] >= 0 && c[k] < ncols, Error, "`0 <= col_indices < ncols` is not satisfied.");
  }
  for (int64_t i = 0; i < nrows; ++i) {  // row by row, as torch: the row's length, then its columns' order
    EMBER_CHECK(r[i] <= r[i + 1] && r[i + 1] - r[i] <= ncols, Error,
                "`0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied.");
    for (int64_t k = r[i] + 1; k < r[i + 1]; ++k) {
      EMBER_CHECK(c[k - 1] < c[k], Error, "`col_indices[..., crow_indices[..., i - 1]:crow_indices[..., i]] for all "
                  "i = 1, ..., nrows are sorted and distinct along the last dimension values` is not satisfied.");
    }
  }
}

// A sparse tensor made from a values tensor records its values' gradient (torch's constructor nodes).
Tensor finish_constructor(Tensor t, const Tensor& values, const TensorOptions& options, const char* node) {
  if (options.requires_grad()) {
    t.requires_grad_(true);
  } else if (autograd::needs_grad({&values})) {
    sparse_detail::record_values_gradient(node, t, values);
  }
  return t;
}

}  // namespace

std::string_view layout_name(Layout layout) {
  switch (layout) {
    case Layout::Strided: return "strided";
    case Layout::SparseCoo: return "sparse_coo";
    case Layout::SparseCsr: return "sparse_csr";
  }
  return "strided";
}

Layout Tensor::layout() const { return impl_->sparse ? impl_->sparse->layout : Layout::Strided; }
bool Tensor::is_sparse() const { return layout() == Layout::SparseCoo; }
bool Tensor::is_sparse_csr() const { return layout() == Layout::SparseCsr; }

void Tensor::throw_no_storage() {
  throw Error("Cannot access data pointer of Tensor that doesn't have storage");
}

void Tensor::throw_no_storage_access() {
  throw NotImplementedError("Cannot access storage of SparseTensorImpl");
}

void throw_sparse_unsupported(const Tensor& t, const char* op) {
  throw NotImplementedError(str("Could not run 'aten::", op ? op : "this operation", "' with arguments from the '",
                                t.is_sparse() ? "SparseCPU" : "SparseCsrCPU", "' backend: ", layout_name(t.layout()),
                                " tensors support only the ops in ember/sparse.h (to_dense() converts)"));
}

const SparseParts& sparse_parts(const Tensor& t, const char* what) {
  EMBER_CHECK(t.has_sparse_layout(), Error, what, " expected sparse tensor layout but got Strided");
  return *t.impl()->sparse;
}

namespace sparse_detail {

Tensor make_sparse(SparseParts parts, DimVector sizes) {
  Device device = parts.values.device();
  EMBER_CHECK(device.is_cpu(), NotImplementedError, "sparse tensors are CPU-only in Ember (values on ", device.str(),
              ")");
  ScalarType dtype = parts.values.dtype();
  DimVector strides(sizes.size(), 0);
  auto impl = std::make_shared<TensorImpl>(Storage::allocate(0, device), std::move(sizes), std::move(strides), 0,
                                           dtype);
  impl->sparse = std::make_shared<SparseParts>(std::move(parts));
  impl->refresh_metadata();
  return Tensor(std::move(impl));
}

Tensor make_coo(Tensor indices, Tensor values, DimVector sizes, bool coalesced) {
  SparseParts parts;
  parts.indices = std::move(indices);
  parts.values = std::move(values);
  parts.coalesced = coalesced || parts.values.size(0) <= 1;
  return make_sparse(std::move(parts), std::move(sizes));
}

Tensor make_csr(Tensor crow, Tensor col, Tensor values, DimVector sizes) {
  SparseParts parts;
  parts.layout = Layout::SparseCsr;
  parts.indices = std::move(crow);
  parts.col_indices = std::move(col);
  parts.values = std::move(values);
  return make_sparse(std::move(parts), std::move(sizes));
}

Tensor with_values(const Tensor& t, Tensor values, std::optional<bool> coalesced) {
  SparseParts parts = *t.impl()->sparse;
  parts.indices = parts.indices.clone();
  if (parts.col_indices.defined()) parts.col_indices = parts.col_indices.clone();
  parts.values = std::move(values);
  if (coalesced) parts.coalesced = *coalesced;
  return make_sparse(std::move(parts), DimVector(t.sizes()));
}

}  // namespace sparse_detail

using sparse_detail::make_coo;
using sparse_detail::make_csr;

Tensor sparse_coo_tensor(const Tensor& indices_in, const Tensor& values_in, std::optional<IntArrayRef> size,
                         TensorOptions options, std::optional<bool> is_coalesced, bool check_invariants) {
  EMBER_CHECK(!indices_in.has_sparse_layout() && !values_in.has_sparse_layout(), Error,
              "sparse_coo_tensor: expected dense indices and values");
  Tensor indices = indices_in.dtype() == kInt64 ? indices_in : indices_in.to(kInt64);
  Tensor values = options.has_dtype() ? values_in.to(options.dtype_or_default()) : values_in;
  if (values.dim() == 0) values = values.reshape({1});
  EMBER_CHECK(indices.dim() == 2, Error, "indices must be sparse_dim x nnz, but got: ", int_list(indices.sizes()));
  EMBER_CHECK(indices.device() == values.device(), Error, "device of indices (", indices.device().str(),
              ") must match device of values (", values.device().str(), ")");
  int64_t sparse_dim = indices.size(0), nnz = indices.size(1), dense_dim = values.dim() - 1;
  EMBER_CHECK(values.size(0) == nnz, Error, "indices and values must have same nnz, but got nnz from indices: ", nnz,
              ", nnz from values: ", values.size(0));
  DimVector sizes;
  if (size) {
    sizes = DimVector(*size);
    EMBER_CHECK(int64_t(sizes.size()) == sparse_dim + dense_dim, Error,
                "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = ", sizes.size(),
                ", sparse_dim = ", sparse_dim, ", dense_dim = ", dense_dim);
    for (int64_t s : sizes) EMBER_CHECK(s >= 0, Error, "sparse_coo_tensor: negative size ", int_list(sizes));
    DimVector expected = sparse_detail::concat({nnz}, sparse_detail::tail(IntArrayRef(sizes), sparse_dim));
    EMBER_CHECK(std::ranges::equal(expected, values.sizes()), Error, "values has incorrect size, expected ",
                int_list(expected), ", got ", int_list(values.sizes()));
    if (check_invariants) check_coo_bounds(indices, sizes);
  } else {
    sizes = sparse_detail::concat(inferred_sizes(indices), sparse_detail::tail(values.sizes(), 1));
  }
  if (options.device() != values.device() && options.device() != Device(kCPU)) {
    indices = indices.to(options.device());
    values = values.to(options.device());
  }
  Tensor t = make_coo(indices, autograd::untracked([&] { return values.alias(); }), sizes,
                      is_coalesced.value_or(false));
  return finish_constructor(t, values, options, "SparseCooTensorWithDimsAndTensorsBackward0");
}

Tensor sparse_coo_tensor(IntArrayRef size, TensorOptions options) {
  DimVector sizes(size);
  Tensor indices = empty({int64_t(sizes.size()), 0}, TensorOptions(kInt64).device(options.device()));
  Tensor values = empty({0}, TensorOptions(options.dtype_or_default()).device(options.device()));
  Tensor t = make_coo(indices, values, sizes, true);
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

Tensor sparse_csr_tensor(const Tensor& crow, const Tensor& col, const Tensor& values_in,
                         std::optional<IntArrayRef> size, TensorOptions options, bool check_invariants) {
  EMBER_CHECK(crow.dim() >= 1, Error, "crow_indices must have dimensionality >= 1 but got ", crow.dim());
  EMBER_CHECK(crow.dtype() == col.dtype(), Error, "crow_indices and col_indices must have the same dtype, bot got ",
              legacy_name(crow.dtype()), " and ", legacy_name(col.dtype()), ", respectively");
  EMBER_CHECK(crow.dtype() == kInt64 || crow.dtype() == kInt32, Error,
              "crow_indices and col_indices must be an int32 or int64 type, but got: ", legacy_name(crow.dtype()));
  Tensor values = options.has_dtype() ? values_in.to(options.dtype_or_default()) : values_in;
  EMBER_CHECK(crow.dim() == 1 && col.dim() == 1 && values.dim() >= 1, NotImplementedError,
              "sparse_csr_tensor: batched CSR tensors are not supported (crow_indices ", int_list(crow.sizes()),
              ", col_indices ", int_list(col.sizes()), ", values ", int_list(values.sizes()), ")");
  int64_t dense_dim = values.dim() - 1;
  EMBER_CHECK(col.numel() == values.size(0), Error, "col_indices.shape[-1] must be equal to nnz (=", values.numel(),
              ") as defined by values.shape[0], but got ", col.numel());
  DimVector sizes;
  if (size) {
    sizes = DimVector(*size);
    EMBER_CHECK(int64_t(sizes.size()) == 2 + dense_dim, Error, "tensor dimensionality must be sum of batch, base, "
                "and dense dimensionalities (=0 + 2 + ", dense_dim, ") but got ", sizes.size());
    DimVector expected = sparse_detail::concat({col.numel()}, sparse_detail::tail(IntArrayRef(sizes), 2));
    EMBER_CHECK(std::ranges::equal(expected, values.sizes()), Error, "values.shape must be ", int_list(expected),
                " (nnz and the dense sizes), but got ", int_list(values.sizes()));
  } else {
    Tensor cols = host_int64(col);
    int64_t top = -1;
    const int64_t* col_index = cols.data_ptr<int64_t>();
    for (int64_t k = 0; k < cols.numel(); ++k) top = std::max(top, col_index[k]);
    sizes = sparse_detail::concat({crow.numel() - 1, top + 1}, sparse_detail::tail(values.sizes(), 1));
  }
  if (check_invariants) check_csr(crow, col, sizes[0], sizes[1]);
  Tensor t = make_csr(crow, col, autograd::untracked([&] { return values.alias(); }), sizes);
  return finish_constructor(t, values, options, "SparseCompressedTensorBackward0");
}

void check_sparse_invariants(const Tensor& t) {
  const SparseParts& p = sparse_parts(t, "check_sparse_invariants");
  if (p.layout == Layout::SparseCoo) check_coo_bounds(p.indices, t.sizes());
  else check_csr(p.indices, p.col_indices, t.size(0), t.size(1));
}

Tensor Tensor::type_as(const Tensor& other) const {
  EMBER_CHECK(layout() == other.layout(), Error, "to(options) doesn't support converting to a different layout, but "
              "got self.layout being ", layout_title(layout()), " and options.layout set as ",
              layout_title(other.layout()));
  return to(other.dtype());
}

// ---- accessors

int64_t Tensor::sparse_dim() const {
  if (!impl_->sparse) return 0;
  return is_sparse() ? impl_->sparse->indices.size(0) : 2;
}

int64_t Tensor::dense_dim() const {
  if (!impl_->sparse) return dim();
  return impl_->sparse->values.dim() - 1;
}

int64_t Tensor::_nnz() const {
  EMBER_CHECK(impl_->sparse, NotImplementedError, "_nnz() expected a sparse tensor, got a strided one");
  return impl_->sparse->values.size(0);
}

Tensor Tensor::_indices() const {
  check_layout(*this, Layout::SparseCoo, "_indices");
  return impl_->sparse->indices.alias();
}

Tensor Tensor::indices() const {
  check_layout(*this, Layout::SparseCoo, "indices");
  EMBER_CHECK(is_coalesced(), Error, "Cannot get indices on an uncoalesced tensor, please call .coalesce() first");
  return impl_->sparse->indices.alias();
}

Tensor Tensor::_values() const {
  EMBER_CHECK(is_sparse(), NotImplementedError, "Could not run 'aten::_values' with arguments from the '",
              has_sparse_layout() ? "SparseCsrCPU" : "CPU", "' backend");
  return autograd::untracked([&] { return impl_->sparse->values.alias(); });  // not differentiable, as torch's
}

Tensor Tensor::values() const {
  const SparseParts& p = sparse_parts(*this, "values");
  EMBER_CHECK(p.layout != Layout::SparseCoo || p.coalesced, Error,
              "Cannot get values on an uncoalesced tensor, please call .coalesce() first");
  return sparse_detail::values_alias(*this);
}

Tensor Tensor::crow_indices() const {
  check_layout(*this, Layout::SparseCsr, "crow_indices");
  return impl_->sparse->indices.alias();
}

Tensor Tensor::col_indices() const {
  check_layout(*this, Layout::SparseCsr, "col_indices");
  return impl_->sparse->col_indices.alias();
}

bool Tensor::is_coalesced() const {
  check_layout(*this, Layout::SparseCoo, "is_coalesced");
  return impl_->sparse->coalesced;
}

Tensor Tensor::coalesce() const {
  check_layout(*this, Layout::SparseCoo, "coalesce");
  return ember::coalesce(*this);
}

Tensor Tensor::to_dense(std::optional<ScalarType> dtype) const {
  if (!impl_->sparse) return dtype && *dtype != this->dtype() ? to(*dtype) : *this;
  return sparse_to_dense(*this, dtype);
}

Tensor Tensor::to_sparse(std::optional<int64_t> sparse_dim) const {
  if (is_sparse()) {
    EMBER_CHECK(!sparse_dim || *sparse_dim == this->sparse_dim(), Error, "to_sparse: conversion from Sparse to "
                "Sparse with sparse_dim argument !=self.sparse_dim() is not supported");
    return *this;
  }
  if (is_sparse_csr()) {
    EMBER_CHECK(!sparse_dim || *sparse_dim == 2, Error, "sparse_compressed_to_sparse: conversion from SparseCsr to "
                "Sparse with sparse_dim argument !=2 is not supported");
    Tensor r = sparse_detail::csr_to_coo(*this);
    if (autograd::needs_grad({this})) sparse_detail::record_pass_through("ToSparseBackward1", r, *this);
    return r;
  }
  return dense_to_sparse(*this, sparse_dim);
}

Tensor Tensor::to_sparse(Layout layout) const {
  switch (layout) {
    case Layout::Strided: return to_dense();
    case Layout::SparseCoo: return to_sparse();
    case Layout::SparseCsr: return to_sparse_csr();
  }
  return *this;
}

Tensor Tensor::to_sparse_csr() const { return ember::to_sparse_csr(*this); }

// ---- conversions

Tensor dense_to_sparse(const Tensor& t, std::optional<int64_t> sparse_dim_opt) {
  int64_t sparse_dim = sparse_dim_opt.value_or(t.dim());
  EMBER_CHECK(sparse_dim >= 0 && sparse_dim <= t.dim(), Error, "dense_to_sparse: sparse_dim argument must be in [0,",
              t.dim(), "] range, but ", sparse_dim, " is given");
  EMBER_CHECK(sparse_dim > 0 || t.dim() == 0, Error,
              "dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0");
  EMBER_CHECK(t.device().is_cpu(), NotImplementedError, "sparse tensors are CPU-only in Ember: cannot convert a ",
              t.device().str(), " tensor");
  Tensor r = autograd::untracked([&] {
    // A sparse coordinate is kept where any of its dense elements is nonzero.
    IntArrayRef lead(t.sizes().data(), size_t(sparse_dim));
    int64_t coordinates = 1;
    for (int64_t s : lead) coordinates *= s;
    Tensor flat = t.reshape(sparse_detail::concat({coordinates}, sparse_detail::tail(t.sizes(), sparse_dim)));
    std::vector<int64_t> kept = sparse_detail::nonzero_rows(flat);
    int64_t nnz = int64_t(kept.size());
    Tensor indices = empty({sparse_dim, nnz}, TensorOptions(kInt64));
    int64_t* out = indices.data_ptr<int64_t>();
    for (int64_t k = 0; k < nnz; ++k) {  // row-major position -> coordinates
      int64_t rest = kept[size_t(k)];
      for (int64_t d = sparse_dim - 1; d >= 0; --d) {
        out[d * nnz + k] = rest % lead[size_t(d)];
        rest /= lead[size_t(d)];
      }
    }
    return make_coo(indices, flat.index_select(0, sparse_detail::int64_tensor(kept)), DimVector(t.sizes()), true);
  });
  // the gradient of the dense tensor is the sparse one's, dense
  sparse_detail::record_dense_gradient(sparse_dim_opt ? "ToSparseBackward0" : "ToSparseBackward1", r, t,
                                       [](const Tensor& g) { return g; });
  return r;
}

Tensor to_sparse_csr(const Tensor& t) {
  if (t.is_sparse_csr()) return t;
  if (t.is_sparse()) {
    EMBER_CHECK(t.sparse_dim() == 2, Error, "coo_to_sparse_csr: conversion from Sparse to SparseCsr for input tensors "
                "with sparse_dim()!=2 is not supported");
    Tensor r = sparse_detail::coo_to_csr(t);
    if (autograd::needs_grad({&t})) sparse_detail::record_pass_through("ToSparseCsrBackward0", r, t);
    return r;
  }
  EMBER_CHECK(t.dim() == 2, NotImplementedError, "to_sparse_csr: only 2-D tensors convert to CSR (batched CSR is "
              "not supported; got ", t.dim(), "-D, size ", int_list(t.sizes()), ")");
  Tensor r = autograd::untracked([&] { return sparse_detail::coo_to_csr(dense_to_sparse(t, 2)); });
  sparse_detail::record_dense_gradient("ToSparseCsrBackward0", r, t, [](const Tensor& g) { return g; });
  return r;
}

namespace sparse_detail {

// The column indices and values are shared with the coalesced COO tensor, as torch's conversions share them.
Tensor coo_to_csr(const Tensor& t) {
  Tensor c = coalesce(t);
  const SparseParts& p = *c.impl()->sparse;
  return autograd::untracked([&] {
    Tensor indices = p.indices.contiguous();
    const int64_t* rows = indices.data_ptr<int64_t>();
    int64_t nnz = indices.size(1), nrows = t.size(0);
    Tensor crow = empty({nrows + 1}, TensorOptions(kInt64));
    int64_t* out = crow.data_ptr<int64_t>();
    // Each row's first entry (rows are sorted): a galloping search forward from the last, then a binary search in the
    // bracket (searching the whole array for each row missed the cache: 4x slower).
    const int64_t *at = rows, *end = rows + nnz;
    for (int64_t r = 0; r <= nrows; ++r) {
      const int64_t *lo = at, *hi = at;
      for (int64_t step = 1; hi < end && *hi < r; step *= 2) lo = hi + 1, hi = std::min(hi + step, end);
      at = std::lower_bound(lo, hi, r);
      out[r] = at - rows;
    }
    return make_csr(crow, indices.select(0, 1), p.values, DimVector(t.sizes()));
  });
}

Tensor csr_rows(const Tensor& t) {
  const SparseParts& p = *t.impl()->sparse;
  Tensor crow = p.indices.to(kInt64);
  Tensor counts = sub(crow.narrow(0, 1, t.size(0)), crow.narrow(0, 0, t.size(0)));
  return repeat_interleave(arange(t.size(0), TensorOptions(kInt64).device(t.device())), counts);
}

Tensor csr_to_coo(const Tensor& t) {
  const SparseParts& p = *t.impl()->sparse;
  return autograd::untracked([&] {
    Tensor indices = stack(std::vector<Tensor>{csr_rows(t), p.col_indices.to(kInt64)}, 0);
    return make_coo(indices, p.values, DimVector(t.sizes()), true);  // values shared, as torch's
  });
}

}  // namespace sparse_detail

}  // namespace ember

// View ops: each returns a tensor that shares storage with its input, with torch's strides.
#include <algorithm>
#include <numeric>
#include <optional>

#include "../autograd/formulas.h"
#include "../autograd/formulas_views.h"
#include "ember/sparse.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/tensor.h"

namespace ember {

namespace view_grad = autograd::view_grad;

namespace {

// Makes `v` a view of `base` (of base's own base when base is a view). Done after recording, which takes a
// node's output to be a new tensor.
void mark_view(const Tensor& v, const Tensor& base) {
  v.impl()->view_base = base.impl()->view_base ? base.impl()->view_base : base.shared_impl();
}

// A view of `base`; when it needs grad it is recorded as `grad_name`, whose formula `backward`
// maps the view's gradient to base's (taken as a template so the no-grad path builds nothing).
template <typename Backward>
Tensor make_view(const Tensor& base, DimVector sizes, DimVector strides, int64_t offset, const char* grad_name,
                 Backward backward) {
  check_strides_nonnegative(strides);
  Tensor v = Tensor::make_view_of(base, std::move(sizes), std::move(strides), offset);
  if (autograd::needs_grad({&base})) {
    autograd::record(grad_name, v, {&base}, {}, [backward](const autograd::BackwardContext& c) {
      return autograd::TensorList{backward(c.grads[0])};
    });
  }
  mark_view(v, base);
  return v;
}

// Resolves one -1 entry in `shape` against numel (torch's infer_size).
DimVector infer_size(IntArrayRef shape, int64_t numel) {
  DimVector res(shape);
  int64_t newsize = 1;
  std::optional<size_t> infer_dim;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      EMBER_CHECK(!infer_dim, Error, "only one dimension can be inferred");
      infer_dim = d;
    } else {
      EMBER_CHECK(shape[d] >= 0, Error, "invalid shape dimension ", shape[d]);
      newsize = int64_t(uint64_t(newsize) * uint64_t(shape[d]));  // wraps as torch's; the view's numel check raises
    }
  }
  bool ok = numel == newsize || (infer_dim && newsize > 0 && numel % newsize == 0);
  EMBER_CHECK(ok, Error, "shape '", int_list(shape), "' is invalid for input of size ", numel);
  EMBER_CHECK(!infer_dim || newsize != 0, Error, "cannot reshape tensor of 0 elements into shape ", int_list(shape),
              " because the unspecified dimension size -1 can be any value and is ambiguous");
  if (infer_dim) res[*infer_dim] = numel / newsize;
  return res;
}

// Strides that let a tensor of (oldshape, oldstride) be viewed as newshape, if any exist.
std::optional<DimVector> compute_view_strides(IntArrayRef oldshape, IntArrayRef oldstride,
                                              IntArrayRef newshape) {
  DimVector newstride(newshape.size());
  if (oldshape.empty()) {
    std::fill(newstride.begin(), newstride.end(), 1);
    return newstride;
  }
  int64_t numel = 1;
  for (int64_t s : oldshape) numel *= s;
  if (numel == 0 && std::equal(oldshape.begin(), oldshape.end(), newshape.begin(), newshape.end())) {
    return DimVector(oldstride);
  }
  if (numel == 0) return contiguous_strides(newshape);
  int64_t view_d = int64_t(newshape.size()) - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = int64_t(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[tensor_d];
    // At the start of each contiguous chunk of the old tensor, match a run of new dims to it.
    if (tensor_d == 0 || (oldshape[tensor_d - 1] != 1 && oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

void check_no_duplicates(IntArrayRef dims, int64_t ndim, const char* what) {
  std::vector<bool> seen(size_t(std::max<int64_t>(ndim, 1)), false);
  for (int64_t d : dims) {
    EMBER_CHECK(!seen[size_t(d)], Error, what);
    seen[size_t(d)] = true;
  }
}

}  // namespace

Tensor Tensor::alias() const {
  return make_view(*this, impl_->sizes, impl_->strides, storage_offset(), "AliasBackward0", view_grad::identity());
}

Tensor Tensor::view(IntArrayRef shape) const {
  DimVector sizes = infer_size(shape, numel());
  auto strides = compute_view_strides(impl_->sizes, impl_->strides, sizes);
  EMBER_CHECK(strides, Error,
              "view size is not compatible with input tensor's size and stride (at least one dimension spans "
              "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(*this, std::move(sizes), std::move(*strides), storage_offset(), "ViewBackward0",
                   view_grad::reshape_to(impl_->sizes));
}

Tensor Tensor::reshape(IntArrayRef shape) const {
  EMBER_CHECK(!has_sparse_layout(), Error, "reshape is not implemented for sparse tensors");
  DimVector sizes = infer_size(shape, numel());
  if (auto strides = compute_view_strides(impl_->sizes, impl_->strides, sizes)) {  // torch: view, or _reshape_alias
    return make_view(*this, std::move(sizes), std::move(*strides), storage_offset(),
                     is_contiguous() ? "ViewBackward0" : "ReshapeAliasBackward0",
                     view_grad::reshape_to(impl_->sizes));
  }
  // Not viewable, so not contiguous: a copy, shaped as torch's _unsafe_view (a new tensor, UnsafeViewBackward0).
  Tensor copy = contiguous();
  Tensor r = autograd::untracked([&] { return copy.view(sizes); });
  r.impl()->view_base.reset();
  if (autograd::needs_grad({&copy})) autograd::record_unsafe_view(r, copy, impl_->sizes);
  return r;
}

Tensor Tensor::view(ScalarType new_dtype) const {
  EMBER_CHECK(!is_quantized() && !ember::is_quantized(new_dtype), Error, "view(dtype) does not reinterpret quantized "
              "tensors (", dtype_name(dtype()), " as ", dtype_name(new_dtype), "); use int_repr() for the integers");
  int64_t old_size = int64_t(element_size()), new_size = int64_t(ember::element_size(new_dtype));
  DimVector sizes = impl_->sizes, strides = impl_->strides;
  int64_t offset = storage_offset();
  if (old_size != new_size) {
    auto names = ember::str(legacy_name(dtype()), " as ", legacy_name(new_dtype));
    EMBER_CHECK(dim() > 0, Error, "self.dim() cannot be 0 to view ", names, " (different element sizes)");
    EMBER_CHECK(strides.back() == 1, Error, "self.stride(-1) must be 1 to view ", names,
                " (different element sizes), but got ", strides.back());
    if (new_size < old_size) {
      int64_t ratio = old_size / new_size;
      for (size_t i = 0; i + 1 < strides.size(); ++i) strides[i] *= ratio;
      sizes.back() *= ratio;
      offset *= ratio;
    } else {
      int64_t ratio = new_size / old_size;
      EMBER_CHECK(sizes.back() % ratio == 0, Error, "self.size(-1) must be divisible by ", ratio, " to view ",
                  names, " (different element sizes), but got ", sizes.back());
      EMBER_CHECK(offset % ratio == 0, Error, "self.storage_offset() must be divisible by ", ratio,
                  " to view ", names, " (different element sizes), but got ", offset);
      for (size_t i = 0; i + 1 < strides.size(); ++i) {
        EMBER_CHECK(strides[i] % ratio == 0, Error, "self.stride(", i, ") must be divisible by ", ratio,
                    " to view ", names, " (different element sizes), but got ", strides[i]);
        strides[i] /= ratio;
      }
      sizes.back() /= ratio;
      offset /= ratio;
    }
  }
  return Tensor::make(storage(), std::move(sizes), std::move(strides), offset, new_dtype);
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  if (has_sparse_layout()) return sparse_transpose(*this, dim0, dim1);
  int64_t n = dim();
  dim0 = wrap_dim(dim0, n);
  dim1 = wrap_dim(dim1, n);
  DimVector sizes = impl_->sizes, strides = impl_->strides;
  if (n > 0) {
    std::swap(sizes[dim0], sizes[dim1]);
    std::swap(strides[dim0], strides[dim1]);
  }
  return make_view(*this, std::move(sizes), std::move(strides), storage_offset(), "TransposeBackward0",
                   view_grad::transpose(dim0, dim1));
}

Tensor Tensor::t() const {
  if (has_sparse_layout()) {
    EMBER_CHECK(sparse_dim() <= 2 && dense_dim() == 0, Error, "t() expects a tensor with <= 2 sparse and 0 dense "
                "dimensions, but got ", sparse_dim(), " sparse and ", dense_dim(), " dense dimensions");
    return dim() < 2 ? *this : sparse_transpose(*this, 0, 1, "TBackward0");
  }
  EMBER_CHECK(dim() <= 2, Error, "t() expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  DimVector sizes = impl_->sizes, strides = impl_->strides;
  if (dim() == 2) {
    std::swap(sizes[0], sizes[1]);
    std::swap(strides[0], strides[1]);
  }
  return make_view(*this, std::move(sizes), std::move(strides), storage_offset(), "TBackward0", view_grad::t());
}

Tensor Tensor::mT() const {
  if (dim() == 0) return alias();  // torch: identity on 0-dim tensors
  EMBER_CHECK(dim() >= 2, Error, "tensor.mT is only supported on matrices or batches of matrices. Got ",
              dim(), "-D tensor.");
  return transpose(-2, -1);
}

Tensor Tensor::permute(IntArrayRef dims) const {
  int64_t n = dim();
  EMBER_CHECK(int64_t(dims.size()) == n, Error,
              "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
              "desired ordering of dimensions i.e. input.dim() = ", n, " is not equal to len(dims) = ", dims.size());
  DimVector wrapped(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) wrapped[i] = wrap_dim(dims[i], n);
  check_no_duplicates(wrapped, n, "permute(): duplicate dims are not allowed.");
  DimVector sizes(dims.size()), strides(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    sizes[i] = impl_->sizes[wrapped[i]];
    strides[i] = impl_->strides[wrapped[i]];
  }
  DimVector inverse(wrapped.size());
  for (size_t i = 0; i < wrapped.size(); ++i) inverse[size_t(wrapped[i])] = int64_t(i);
  return make_view(*this, std::move(sizes), std::move(strides), storage_offset(), "PermuteBackward0",
                   view_grad::permute(std::move(inverse)));
}

Tensor Tensor::squeeze() const {
  DimVector sizes, strides;
  for (int64_t i = 0; i < dim(); ++i) {
    if (impl_->sizes[i] != 1) {
      sizes.push_back(impl_->sizes[i]);
      strides.push_back(impl_->strides[i]);
    }
  }
  return make_view(*this, std::move(sizes), std::move(strides), storage_offset(), "SqueezeBackward0",
                   view_grad::reshape_to(impl_->sizes));
}

namespace {

// squeeze of the size-1 dims among `dims`, recorded as `grad_name`.
Tensor squeeze_dims(const Tensor& self, IntArrayRef dims, const char* grad_name) {
  int64_t n = self.dim();
  std::vector<bool> drop(size_t(std::max<int64_t>(n, 1)), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, n);
    EMBER_CHECK(!drop[size_t(w)], Error, "dim ", w, " appears multiple times in the list of dims");
    drop[size_t(w)] = true;
  }
  DimVector sizes, strides;
  for (int64_t i = 0; i < n; ++i) {
    if (drop[size_t(i)] && self.sizes()[size_t(i)] == 1) continue;
    sizes.push_back(self.sizes()[size_t(i)]);
    strides.push_back(self.strides()[size_t(i)]);
  }
  return make_view(self, std::move(sizes), std::move(strides), self.storage_offset(), grad_name,
                   view_grad::reshape_to(self.sizes()));
}

}  // namespace

// squeeze(dim) records SqueezeBackward1 and squeeze(dims) SqueezeBackward2 (a 1-tuple too), as torch's overloads.
Tensor Tensor::squeeze(int64_t d) const { return squeeze_dims(*this, {d}, "SqueezeBackward1"); }
Tensor Tensor::squeeze(IntArrayRef dims) const { return squeeze_dims(*this, dims, "SqueezeBackward2"); }

Tensor Tensor::unsqueeze(int64_t d) const {
  if (has_sparse_layout()) return sparse_unsqueeze(*this, d);
  d = wrap_dim(d, dim() + 1);
  DimVector sizes = impl_->sizes, strides = impl_->strides;
  int64_t new_stride = d >= dim() ? 1 : sizes[d] * strides[d];
  sizes.insert(size_t(d), 1);
  strides.insert(size_t(d), new_stride);
  return make_view(*this, std::move(sizes), std::move(strides), storage_offset(), "UnsqueezeBackward0",
                   view_grad::unsqueeze(d));
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  start_dim = wrap_dim(start_dim, dim());
  end_dim = wrap_dim(end_dim, dim());
  EMBER_CHECK(start_dim <= end_dim, Error, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (dim() == 0) return reshape(DimVector{1});
  if (start_dim == end_dim) return *this;
  DimVector shape;
  for (int64_t i = 0; i < dim(); ++i) {
    if (i < start_dim || i > end_dim) shape.push_back(impl_->sizes[i]);
    if (i == end_dim) shape.push_back(safe_numel(IntArrayRef(impl_->sizes.data() + start_dim, size_t(end_dim - start_dim + 1))));
  }
  return reshape(shape);
}

Tensor Tensor::unflatten(int64_t d, IntArrayRef new_sizes) const {
  d = wrap_dim(d, dim());
  EMBER_CHECK(!new_sizes.empty(), Error, "unflatten: sizes must be non-empty");
  int64_t dim_size = impl_->sizes[d];
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < new_sizes.size(); ++i) {
    if (new_sizes[i] == -1) {
      EMBER_CHECK(inferred < 0, Error, "only one dimension can be inferred");
      inferred = int64_t(i);
    } else {
      known = int64_t(uint64_t(known) * uint64_t(new_sizes[i]));  // wraps: the check below compares exactly
    }
  }
  DimVector sizes_resolved(new_sizes);
  if (inferred >= 0 && known != 0 && dim_size % known == 0) sizes_resolved[inferred] = dim_size / known;
  uint64_t prod = 1;
  bool overflow = false;
  for (int64_t s : sizes_resolved) overflow |= mul_overflows<uint64_t>(prod, uint64_t(s), &prod);
  EMBER_CHECK(!overflow && prod == uint64_t(dim_size), Error, "unflatten: Provided sizes ", int_list(new_sizes),
              " don't multiply up to the size of dim ", d, " (", dim_size, ") in the input tensor");
  DimVector shape;
  for (int64_t i = 0; i < dim(); ++i) {
    if (i == d) for (int64_t s : sizes_resolved) shape.push_back(s);
    else shape.push_back(impl_->sizes[i]);
  }
  return view(shape);
}

Tensor Tensor::expand(IntArrayRef target) const {
  EMBER_CHECK(!has_sparse_layout(), Error, "expand is unsupported for Sparse tensors");
  int64_t ndim = int64_t(target.size()), old_ndim = dim();
  EMBER_CHECK(ndim >= old_ndim, Error, "expand(torch.", legacy_name(dtype()),
              "Tensor{", int_list(sizes()), "}, size=", int_list(target),
              "): the number of sizes provided (", ndim, ") must be greater or equal to the number of dimensions in the tensor (",
              old_ndim, ")");
  DimVector sizes(static_cast<size_t>(ndim)), strides(static_cast<size_t>(ndim));
  for (int64_t i = ndim - 1; i >= 0; --i) {
    int64_t old_dim = old_ndim - ndim + i;  // the matching dim of this tensor, if any
    int64_t size = old_dim >= 0 ? impl_->sizes[old_dim] : 1;
    // A new dim gets the stride it would have if dense over the dims after it, as torch (it matters only
    // while its size is 1, as a layout hint; an expanded dim's stride is 0 below).
    int64_t stride = old_dim >= 0 ? impl_->strides[old_dim] : 0;
    if (old_dim < 0 && i < ndim - 1 && __builtin_mul_overflow(sizes[i + 1], strides[i + 1], &stride)) stride = 0;
    int64_t want = target[i];
    if (want == -1) {
      EMBER_CHECK(old_dim >= 0, Error, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension ", i);
      want = size;
    }
    if (size != want) {
      EMBER_CHECK(size == 1, Error, "The expanded size of the tensor (", want,
                  ") must match the existing size (", size, ") at non-singleton dimension ", i,
                  ".  Target sizes: ", int_list(target), ".  Tensor sizes: ", int_list(this->sizes()));
      stride = 0;
    }
    EMBER_CHECK(want >= 0, Error, "Trying to create tensor with negative dimension ", want, ": ", int_list(target));
    sizes[i] = want;
    strides[i] = stride;
  }
  return make_view(*this, std::move(sizes), std::move(strides), storage_offset(), "ExpandBackward0",
                   view_grad::expand(impl_->sizes));
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  EMBER_CHECK(dim() > 0, Error, "narrow() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK(length >= 0, Error, "narrow(): length must be non-negative.");
  d = wrap_dim(d, dim());
  int64_t cur = impl_->sizes[d];
  EMBER_CHECK(start >= -cur && start <= cur, IndexError, "start out of range (expected to be in range of [", -cur,
              ", ", cur, "], but got ", start, ")");
  if (start < 0) start += cur;
  EMBER_CHECK(start <= cur - length, Error, "start (", start, ") + length (", length,
              ") exceeds dimension size (", cur, ").");
  return slice(d, start, start + length, 1);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  if (has_sparse_layout()) return sparse_select(*this, d, index);
  EMBER_CHECK(dim() > 0, IndexError, "select() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim());
  int64_t size = impl_->sizes[d];
  EMBER_CHECK(index >= -size && index < size, IndexError, "select(): index ", index,
              " out of range for tensor of size ", int_list(sizes()), " at dimension ", d);
  if (index < 0) index += size;
  DimVector sizes = impl_->sizes, strides = impl_->strides;
  int64_t offset = storage_offset() + index * strides[d];
  sizes.erase(size_t(d));
  strides.erase(size_t(d));
  return make_view(*this, std::move(sizes), std::move(strides), offset, "SelectBackward0",
                   view_grad::scatter(*this, [d, index](const Tensor& z) { return z.select(d, index); }));
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start_opt, std::optional<int64_t> end_opt, int64_t step) const {
  EMBER_CHECK(dim() > 0, IndexError, "slice() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK(step > 0, ValueError, "step must be greater than zero");
  d = wrap_dim(d, dim());
  int64_t size = impl_->sizes[d];
  // Python slice semantics: clamp after wrapping negatives.
  auto clamp_index = [size](int64_t i) {
    if (i < 0) i += size;
    return std::clamp<int64_t>(i, 0, size);
  };
  int64_t start = start_opt ? clamp_index(*start_opt) : 0;
  int64_t end = end_opt ? clamp_index(*end_opt) : size;
  if (end < start) end = start;
  DimVector sizes = impl_->sizes, strides = impl_->strides;
  int64_t offset = storage_offset() + start * strides[d];
  sizes[d] = (end - start + step - 1) / step;
  strides[d] = int64_t(uint64_t(strides[d]) * uint64_t(step));  // wraps as torch's for a huge step (size <= 1)
  return make_view(*this, std::move(sizes), std::move(strides), offset, "SliceBackward0",
                   view_grad::scatter(*this, [d, start, end, step](const Tensor& z) { return z.slice(d, start, end, step); }));
}

Tensor Tensor::unfold(int64_t d, int64_t size, int64_t step) const {
  int64_t n = dim();
  d = wrap_dim(d, n);
  int64_t max_size = n == 0 ? 1 : impl_->sizes[d];
  EMBER_CHECK(size >= 0, Error, "size is ", size, " but must be >= 0");
  EMBER_CHECK(size <= max_size, Error, "maximum size for tensor at dimension ", d, " is ", max_size,
              " but size is ", size);
  EMBER_CHECK(step > 0, Error, "step is ", step, " but must be > 0");
  DimVector sizes = impl_->sizes, strides = impl_->strides;
  if (n == 0) {
    sizes.push_back(size);
    strides.push_back(1);
  } else {
    sizes.push_back(size);
    strides.push_back(strides[d]);
    sizes[d] = (impl_->sizes[d] - size) / step + 1;
    strides[d] *= step;
  }
  return make_view(*this, std::move(sizes), std::move(strides), storage_offset(), "UnfoldBackward0",
                   view_grad::unfold(impl_->sizes, d, size, step));
}

Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> offset_opt) const {
  int64_t offset = offset_opt.value_or(storage_offset());
  EMBER_CHECK(sizes.size() == strides.size(), Error, "mismatch in length of strides and shape");
  EMBER_CHECK(offset >= 0, Error, "Tensor: invalid storage offset ", offset);
  check_strides_nonnegative(strides);
  size_t itemsize = element_size();
  size_t needed = storage_nbytes(sizes, strides, itemsize, offset);  // 0 for no elements, wherever they start
  EMBER_CHECK(needed <= storage().nbytes(), Error, "setStorage: sizes ", int_list(sizes), ", strides ",
              int_list(strides), ", storage offset ", offset, ", and itemsize ", itemsize, " requiring a storage size of ",
              needed, " are out of bounds for storage of size ", storage().nbytes());
  return make_view(*this, DimVector(sizes), DimVector(strides), offset, "AsStridedBackward0",
                   view_grad::as_strided(*this, sizes, strides, offset));
}

namespace {

// Pieces of `t` along `d` of the given sizes, recorded as one node `name` with one output per piece.
std::vector<Tensor> split_pieces(const Tensor& t, IntArrayRef sizes, int64_t d, const char* name) {
  std::vector<Tensor> out = autograd::untracked([&] {
    std::vector<Tensor> pieces;
    int64_t start = 0;
    for (int64_t s : sizes) {
      pieces.push_back(t.narrow(d, start, s));
      start += s;
    }
    return pieces;
  });
  if (autograd::needs_grad({&t})) {
    autograd::record_split(name, out, t, sizes, wrap_dim(d, t.dim()));
    for (const Tensor& piece : out) mark_view(piece, t);
    autograd::mark_multi_output_views(out);
  }
  return out;
}

}  // namespace

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t d) const {
  EMBER_CHECK(dim() != 0, Error, "split expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, Error, "split expects split_size be non-negative, but got split_size=", split_size);
  int64_t dim_size = size(d);
  EMBER_CHECK(split_size > 0 || dim_size == 0, Error,
              "split_size can only be 0 if dimension size is 0, but got dimension size of ", dim_size);
  int64_t num_splits = split_size == 0 ? 1 : std::max<int64_t>((dim_size + split_size - 1) / split_size, 1);
  int64_t last = split_size - (split_size * num_splits - dim_size);
  DimVector sizes;
  for (int64_t i = 0; i < num_splits; ++i) sizes.push_back(i < num_splits - 1 ? split_size : last);
  return split_pieces(*this, sizes, d, "SplitBackward0");
}

std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t d) const {
  EMBER_CHECK(dim() != 0, Error, "split expects at least a 1-dimensional tensor");
  int64_t dim_size = size(d), total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0, Error, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
                int_list(split_sizes));
    total += s;
  }
  EMBER_CHECK(total == dim_size, Error, "split_with_sizes expects split_sizes to sum exactly to ", dim_size,
              " (input tensor's size at dimension ", wrap_dim(d, dim()), "), but got split_sizes=", int_list(split_sizes));
  return split_pieces(*this, split_sizes, d, "SplitWithSizesBackward0");
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t d) const {
  EMBER_CHECK(dim() > 0, Error, "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, Error, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  int64_t dim_size = size(d);
  int64_t split_size = (dim_size + chunks - 1) / chunks;
  if (split_size == 0 && dim_size == 0) {
    DimVector sizes(size_t(chunks), 0);
    return split_with_sizes(sizes, d);
  }
  return split(split_size, d);
}

std::vector<Tensor> Tensor::unbind(int64_t d) const {
  d = wrap_dim(d, dim());
  EMBER_CHECK(dim() > 0, IndexError, "Dimension specified as 0 but tensor has no dimensions");
  std::vector<Tensor> out = autograd::untracked([&] {
    std::vector<Tensor> slices;
    for (int64_t i = 0; i < impl_->sizes[d]; ++i) slices.push_back(select(d, i));
    return slices;
  });
  if (autograd::needs_grad({this})) {
    autograd::record_unbind(out, *this, d);
    for (const Tensor& slice : out) mark_view(slice, *this);
    autograd::mark_multi_output_views(out);
  }
  return out;
}

Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  dim1 = wrap_dim(dim1, dim());
  dim2 = wrap_dim(dim2, dim());
  EMBER_CHECK(dim1 != dim2, Error, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t diag_size;
  int64_t storage_off = storage_offset();
  if (offset >= 0) diag_size = std::max<int64_t>(std::min(impl_->sizes[dim1], impl_->sizes[dim2] - offset), 0);
  else diag_size = std::max<int64_t>(std::min(impl_->sizes[dim1] + offset, impl_->sizes[dim2]), 0);
  if (diag_size > 0) storage_off += offset >= 0 ? offset * impl_->strides[dim2] : -offset * impl_->strides[dim1];
  DimVector sizes = impl_->sizes, strides = impl_->strides;
  int64_t diag_stride = strides[dim1] + strides[dim2];
  sizes.erase(size_t(std::max(dim1, dim2)));
  strides.erase(size_t(std::max(dim1, dim2)));
  sizes.erase(size_t(std::min(dim1, dim2)));
  strides.erase(size_t(std::min(dim1, dim2)));
  sizes.push_back(diag_size);
  strides.push_back(diag_stride);
  return make_view(*this, std::move(sizes), std::move(strides), storage_off, "DiagonalBackward0",
                   view_grad::scatter(*this, [offset, dim1, dim2](const Tensor& z) { return z.diagonal(offset, dim1, dim2); }));
}

Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  int64_t n = dim();
  EMBER_CHECK(source.size() == destination.size(), Error,
              "movedim: Invalid source or destination dims: source (", int_list(source),
              " dims) should contain the same number of dims as destination (", int_list(destination), " dims)");
  DimVector src(source.size()), dst(destination.size());
  for (size_t i = 0; i < source.size(); ++i) {
    src[i] = wrap_dim(source[i], n);
    dst[i] = wrap_dim(destination[i], n);
  }
  check_no_duplicates(src, n, ember::str("movedim: repeated dim in `source` (", int_list(source), ")").c_str());
  check_no_duplicates(dst, n, ember::str("movedim: repeated dim in `destination` (", int_list(destination), ")").c_str());
  DimVector order(size_t(n), -1);
  std::vector<bool> src_used(size_t(std::max<int64_t>(n, 1)), false);
  for (size_t i = 0; i < src.size(); ++i) {
    order[dst[i]] = src[i];
    src_used[size_t(src[i])] = true;
  }
  int64_t next_src = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (order[i] != -1) continue;
    while (src_used[size_t(next_src)]) ++next_src;
    order[i] = next_src++;
  }
  return n == 0 ? alias() : permute(order);  // torch: a 0-dim tensor's movedim is alias()
}

}  // namespace ember

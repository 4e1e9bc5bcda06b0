// Advanced indexing: integer index tensors (broadcast together) and bool masks, for reads
// (index), writes (index_put_) and their gradients; nonzero, gather, index_select, masked_fill.
#include "../core/autocast_policy.h"
#include <cstring>

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/sparse.h"
#include "ember/creation.h"
#include "ember/host.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/parallel.h"
#include "ember/reduce.h"
#include "ember/safe_size.h"
#include "ember/type_promotion.h"
#include "reduction_support.h"

namespace ember {

namespace {

// Where the indexed elements are: offsets (int64, shape `index_shape`) into self's storage, plus
// the dims no index touches ("rest"), and where the index dims land in the result.
struct IndexPlan {
  DimVector index_shape, rest_sizes, rest_strides;
  // The first out-of-bounds index (torch's kernel reports it after the value checks of index_put_).
  std::string bounds_error;
  void check_bounds() const { EMBER_CHECK(bounds_error.empty(), IndexError, bounds_error); }
  Tensor offsets;
  DimVector result_shape;
  // Permutation from core order (index dims, then rest) to result order: the index dims stay in
  // place when they were adjacent in self, else they go first (torch's rule).
  DimVector core_to_result;
  std::vector<DimVector> index_strides;  // each index tensor's strides, broadcast to index_shape
  int64_t rest_before = 0;               // rest dims placed before the index dims in the result
};

// idx * stride with negative indices wrapped; when `check`, the first index out of `size` sets `error` (the
// message names index tensor number `which`). Computed on the host (the bounds decide an error), then put on `device`.
Tensor wrapped_offsets(const Tensor& idx, int64_t size, int64_t stride, int64_t which, bool check, std::string& error,
                       Device device) {
  Tensor c = host_copy(idx).contiguous();
  Tensor out = empty(c.sizes(), c.options().with_dtype(kInt64));
  const int64_t* in = c.data_ptr<int64_t>();
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < c.numel(); ++i) {
    int64_t v = in[i];
    if (check && (v < -size || v >= size) && error.empty()) {
      error = str("index ", v, " is out of bounds for dimension ", which, " with size ", size);
    }
    o[i] = (v < 0 ? v + size : v) * stride;
  }
  return out.to(device);
}

IndexPlan plan_index(const Tensor& self, const std::vector<Tensor>& indices) {
  std::vector<std::pair<int64_t, Tensor>> picks;  // (self dim, int64 index)
  int64_t d = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor& idx = indices[i];
    if (!idx.defined()) {
      ++d;
      continue;
    }
    EMBER_CHECK(idx.device().is_cpu() || idx.device() == self.device(), IndexError, "indices should be either on cpu "
                "or on the same device as the indexed tensor (", self.device().str(), ")");
    if (idx.dtype() == kBool || idx.dtype() == kUInt8) {
      for (int64_t k = 0; k < idx.dim(); ++k) {
        EMBER_CHECK(d + k < self.dim(), IndexError, "Dimension out of range (expected to be in range of [",
                    -self.dim(), ", ", self.dim() - 1, "], but got ", d + k, ")");
        EMBER_CHECK(idx.sizes()[size_t(k)] == self.sizes()[size_t(d + k)], IndexError, "The shape of the mask ",
                    int_list(idx.sizes()), " at index ", k, " does not match the shape of the indexed tensor ",
                    int_list(self.sizes()), " at index ", d + k);
      }
      Tensor nz = nonzero(idx.dtype() == kBool ? idx : ne(idx, wrapped_scalar(0)));
      for (int64_t k = 0; k < idx.dim(); ++k) picks.push_back({d + k, nz.select(1, k)});
      d += idx.dim();
      continue;
    }
    EMBER_CHECK(idx.dtype() == kInt64 || idx.dtype() == kInt32, IndexError,
                "tensors used as indices must be long, int, byte or bool tensors");
    EMBER_CHECK(d < self.dim(), IndexError, "too many indices for tensor of dimension ", self.dim());
    picks.push_back({d, idx.to(kInt64)});
    ++d;
  }
  IndexPlan plan;
  for (size_t k = 0; k < picks.size(); ++k) {
    DimVector next = plan.index_shape;
    try {
      next = broadcast_shapes(plan.index_shape, picks[k].second.sizes());
    } catch (const Error&) {
      std::string shapes;
      for (size_t j = 0; j < picks.size(); ++j) shapes += (j ? ", " : "") + str(int_list(picks[j].second.sizes()));
      throw IndexError(str("shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes));
    }
    plan.index_shape = next;
  }
  std::vector<bool> picked(size_t(self.dim()), false);
  for (auto& pick : picks) picked[size_t(pick.first)] = true;
  // As torch: any index into a dim of size 0 is out of bounds, while other indices are checked
  // only when the result has elements (x[0:0, [9]] is empty, not an error).
  bool empty_result = checked_numel(plan.index_shape) == 0, zero_picked = false;
  for (int64_t k = 0; k < self.dim(); ++k) {
    bool zero = self.sizes()[size_t(k)] == 0;
    (picked[size_t(k)] ? zero_picked : empty_result) |= zero;
  }
  EMBER_CHECK(!zero_picked || checked_numel(plan.index_shape) == 0, IndexError,
              "index is out of bounds for dimension with size 0");
  for (size_t k = 0; k < picks.size(); ++k) {  // torch's messages number the index tensors, not the dims
    auto& [dim, idx] = picks[k];
    int64_t size = self.sizes()[size_t(dim)];
    Tensor element_offsets = wrapped_offsets(idx, size, self.strides()[size_t(dim)], int64_t(k), !empty_result,
                                             plan.bounds_error, self.device());
    plan.offsets = plan.offsets.defined() ? add(plan.offsets, element_offsets) : element_offsets;
  }
  for (auto& pick : picks) plan.index_strides.emplace_back(pick.second.expand(plan.index_shape).strides());
  plan.offsets = plan.offsets.defined() ? plan.offsets.expand(plan.index_shape).contiguous()
                                        : zeros(plan.index_shape, self.options().with_dtype(kInt64));
  bool adjacent = true;
  for (size_t k = 1; k < picks.size(); ++k) adjacent &= picks[k].first == picks[k - 1].first + 1;
  int64_t rest_before = 0;
  for (int64_t k = 0; k < self.dim(); ++k) {
    if (picked[size_t(k)]) continue;
    plan.rest_sizes.push_back(self.sizes()[size_t(k)]);
    plan.rest_strides.push_back(self.strides()[size_t(k)]);
    if (adjacent && !picks.empty() && k < picks[0].first) ++rest_before;
  }
  int64_t nb = int64_t(plan.index_shape.size()), nr = int64_t(plan.rest_sizes.size());
  plan.rest_before = rest_before;
  for (int64_t k = 0; k < rest_before; ++k) plan.core_to_result.push_back(nb + k);
  for (int64_t k = 0; k < nb; ++k) plan.core_to_result.push_back(k);
  for (int64_t k = rest_before; k < nr; ++k) plan.core_to_result.push_back(nb + k);
  for (int64_t p : plan.core_to_result) {
    plan.result_shape.push_back(p < nb ? plan.index_shape[size_t(p)] : plan.rest_sizes[size_t(p - nb)]);
  }
  return plan;
}

// Whether `from` broadcasts to exactly `to`.
bool broadcasts_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  for (size_t k = 1; k <= from.size(); ++k) {
    int64_t f = from[from.size() - k];
    if (f != 1 && f != to[to.size() - k]) return false;
  }
  return true;
}

DimVector core_shape(const IndexPlan& plan) {
  DimVector shape = plan.index_shape;
  for (int64_t s : plan.rest_sizes) shape.push_back(s);
  return shape;
}

// A mask of self's whole shape, both on the CPU (which the one-pass loops below need; a device mask goes through
// nonzero).
bool is_full_mask(const Tensor& self, const std::vector<Tensor>& indices) {
  return indices.size() == 1 && indices[0].dtype() == kBool && self.dim() > 0 && self.device().is_cpu() &&
         indices[0].device().is_cpu() &&
         std::equal(indices[0].sizes().begin(), indices[0].sizes().end(), self.sizes().begin(), self.sizes().end());
}

// A 0-dim bool mask acts like a Python bool: a new dim of size 1 (true) or 0 (false). It becomes
// an index [0] or [] into a unit dim inserted at its place.
std::pair<Tensor, std::vector<Tensor>> unfold_scalar_masks(const Tensor& self, std::vector<Tensor> indices) {
  EMBER_CHECK(int64_t(indices.size()) <= self.dim(), IndexError, "too many indices for tensor of dimension ",
              self.dim(), " (got ", indices.size(), ")");
  Tensor t = self;
  int64_t d = 0;
  for (Tensor& idx : indices) {
    bool mask = idx.defined() && (idx.dtype() == kBool || idx.dtype() == kUInt8);
    if (mask && idx.dim() == 0) {
      bool on = idx.item().to_bool();
      t = t.unsqueeze(d);
      idx = on ? zeros({1}, idx.options().with_dtype(kInt64)) : empty({0}, idx.options().with_dtype(kInt64));
      ++d;
      continue;
    }
    d += mask ? idx.dim() : 1;
  }
  return {t, indices};
}

// torch's result layout: TensorIterator's over the source restrided to the result (index dims of stride 0) and
// the index tensors viewed with size-1 dims around them (broadcast, stride 0, where the result dim is larger).
DimVector result_strides(const IndexPlan& plan) {
  int64_t nb = int64_t(plan.index_shape.size());
  std::vector<DimVector> operands(1);
  for (int64_t p : plan.core_to_result) operands[0].push_back(p < nb ? 0 : plan.rest_strides[size_t(p - nb)]);
  for (const DimVector& index : plan.index_strides) {
    int64_t outer = nb > 0 ? index[0] * plan.index_shape[0] : 1;  // the stride a view gives a leading size-1 dim
    operands.emplace_back();
    for (int64_t p : plan.core_to_result) {
      bool unit = p >= nb && plan.rest_sizes[size_t(p - nb)] == 1;
      operands.back().push_back(p < nb ? index[size_t(p)] : !unit ? 0 : p - nb < plan.rest_before ? outer : 1);
    }
  }
  std::vector<IntArrayRef> strides(operands.begin(), operands.end());
  return infer_dense_strides(plan.result_shape, strides);
}

Tensor index_impl(const Tensor& self_in, const std::vector<Tensor>& indices_in) {
  auto [self, indices] = unfold_scalar_masks(self_in, indices_in);
  if (is_full_mask(self, indices)) {  // x[mask]: the two-pass masked_select kernel
    return kernels::masked_select[self.device()](self.contiguous(), indices[0].contiguous());
  }
  IndexPlan plan = plan_index(self, indices);
  plan.check_bounds();
  Tensor core = empty(core_shape(plan), self.options());
  if (core.numel() > 0) {
    kernels::index_gather[self.device()](self, self.storage_offset(), plan.rest_sizes, plan.rest_strides, plan.offsets, core);
  }
  Tensor result = core.permute(plan.core_to_result);
  DimVector strides = result_strides(plan);
  if (std::equal(strides.begin(), strides.end(), result.strides().begin(), result.strides().end())) return result;
  Tensor out = empty_strided(plan.result_shape, strides, self.options());
  out.copy_(result);
  return out;
}

// torch's index_put_ writes through masked_fill_ (the value converted, its dtype unchecked) when the value has one
// element and the only index is a mask of 1+ dims.
bool fills_through_mask(const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  if (accumulate || values.numel() != 1) return false;
  int defined = 0;
  for (const Tensor& idx : indices) defined += idx.defined();
  for (const Tensor& idx : indices) {
    if (idx.defined()) return defined == 1 && idx.dim() > 0 && (idx.dtype() == kBool || idx.dtype() == kUInt8);
  }
  return false;
}

void index_put_impl(const Tensor& self_in, const std::vector<Tensor>& indices_in, const Tensor& values_in, bool accumulate) {
  if (self_in.has_sparse_layout() || values_in.has_sparse_layout()) [[unlikely]] {
    throw_sparse_unsupported(self_in.has_sparse_layout() ? self_in : values_in, "index_put_");
  }
  auto [self, indices] = unfold_scalar_masks(self_in, indices_in);
  Overlap aliasing = overlap(self, values_in);
  EMBER_CHECK(aliasing == Overlap::None || aliasing == Overlap::TooHard, Error, "unsupported operation: some elements "
              "of the input tensor and the written-to tensor refer to a single memory location. Please clone() the "
              "tensor before performing the operation.");
  EMBER_CHECK(values_in.device() == self.device() || values_in.dim() == 0, Error,
              "Expected all tensors to be on the same device, but found at least two devices, ",
              self.device().str(), " and ", values_in.device().str(), "!");
  // unknown aliasing: a copy; a 0-dim value goes to self's device, as torch's
  Tensor values = (aliasing == Overlap::TooHard ? values_in.clone() : values_in).to(self.device());
  // torch's masked_fill_ path converts the value as a number, refusing one out of self's range
  if (fills_through_mask(indices_in, values, accumulate)) values = scalar_tensor(values.item(), self.options());
  if (is_full_mask(self, indices) && self.is_contiguous() && values.numel() == 1 && !accumulate) {
    // x[mask] = v: one pass over the mask.
    Tensor m = indices[0].contiguous();
    const bool* keep = m.data_ptr<bool>();
    Tensor v = values.to(self.dtype());
    auto blend = [&]<typename U>(U) {  // bitwise blend on same-size integers: vectorises, no branches
      U bits;
      std::memcpy(&bits, v.data_ptr(), sizeof(U));
      U* to = static_cast<U*>(self.data_ptr());
      for (int64_t i = 0; i < m.numel(); ++i) {
        U select = U(0) - U(keep[i]);
        to[i] = U((to[i] & ~select) | (bits & select));
      }
    };
    switch (self.element_size()) {
      case 1: blend(uint8_t{}); break;
      case 2: blend(uint16_t{}); break;
      case 4: blend(uint32_t{}); break;
      default: blend(uint64_t{}); break;
    }
    self_in.bump_version();
    return;
  }
  // torch's order: the indices' checks, the value's shape, its dtype, then the indices' bounds
  IndexPlan plan = plan_index(self, indices);
  EMBER_CHECK(broadcasts_to(values.sizes(), plan.result_shape), Error, "shape mismatch: value tensor of shape ",
              int_list(values.sizes()), " cannot be broadcast to indexing result of shape ", int_list(plan.result_shape));
  EMBER_CHECK(values.dtype() == self.dtype() || values.impl()->is_wrapped_number ||
              fills_through_mask(indices_in, values, accumulate), Error, "Index put requires the "
              "source and destination dtypes match, got ", legacy_name(self.dtype()),
              " for the destination and ", legacy_name(values.dtype()), " for the source.");
  plan.check_bounds();
  DimVector result_to_core(plan.core_to_result.size());
  for (size_t k = 0; k < plan.core_to_result.size(); ++k) result_to_core[size_t(plan.core_to_result[k])] = int64_t(k);
  Tensor v = values.to(self.dtype());
  Tensor core = v.expand(plan.result_shape).permute(result_to_core).contiguous();
  if (core.numel() > 0) {
    kernels::index_scatter[self.device()](self, self.storage_offset(), plan.rest_sizes, plan.rest_strides, plan.offsets, core, accumulate);
  }
  self_in.bump_version();
}

}  // namespace

// The count sizes the result, so the mask is read on the host (as torch's CUDA nonzero syncs); the result goes
// back to x's device.
Tensor nonzero(const Tensor& x) {
  check_not_float8(x, "nonzero_count_cpu");
  Tensor mask = host_copy(autograd::untracked([&] { return (x.dtype() == kBool ? x : ne(x, wrapped_scalar(0))); }))
                    .contiguous();
  Unlocked unlocked(mask.numel() > kUnlockElements);
  const bool* m = mask.data_ptr<bool>();
  int64_t n = 0;
  for (int64_t i = 0; i < mask.numel(); ++i) n += m[i];
  // torch's layout: column-major (n, ndim), strides (1, n) even when n is 0
  Tensor columns = empty_strided({n, x.dim()}, {1, n}, mask.options().with_dtype(kInt64));
  int64_t* o = columns.data_ptr<int64_t>();
  DimVector index(size_t(x.dim()), 0);
  for (int64_t i = 0, row = 0; i < mask.numel(); ++i) {
    if (m[i]) {
      for (size_t k = 0; k < index.size(); ++k) o[int64_t(k) * n + row] = index[k];
      ++row;
    }
    for (size_t k = index.size(); k-- > 0;) {  // row-major position of element i + 1
      if (++index[k] < x.sizes()[k]) break;
      index[k] = 0;
    }
  }
  return columns.to(x.device());
}

Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  if (self.has_sparse_layout()) [[unlikely]] throw_sparse_unsupported(self, "index");
  Tensor r = autograd::untracked([&] { return index_impl(self, indices); });
  if (autograd::needs_grad({&self})) autograd::record_index(r, self, indices);
  return r;
}

Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  EMBER_AUTOCAST(promote, kCUDA, index_put, self, indices, values, accumulate);
  Tensor r = autograd::untracked([&] {
    Tensor out = self.clone();
    index_put_impl(out, indices, values, accumulate);
    return out;
  });
  if (autograd::needs_grad({&self, &values})) autograd::record_index_put(r, self, values, indices, accumulate);
  return r;
}

Tensor& index_put_(Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  autograd::check_in_place(self);
  if (autograd::needs_grad({&self, &values}) || autograd::writes_into_graph_view(self)) {
    return autograd::record_in_place(self, [&] { return index_put(self, indices, values, accumulate); });
  }
  index_put_impl(self, indices, values, accumulate);
  return self;
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index_in) {
  int64_t d = wrap_dim(dim, self.dim());
  if (index_in.numel() == 0) {  // an empty index of any rank and dtype gives an empty result (torch checks nothing)
    Tensor r = empty(index_in.sizes(), self.options());
    if (autograd::needs_grad({&self})) autograd::record_gather(r, self, {});
    return r;
  }
  EMBER_CHECK(index_in.dtype() == kInt64 || index_in.dtype() == kInt32, Error,
              "gather(): Expected dtype int32/int64 for index");
  Tensor index = index_in.to(kInt64);
  EMBER_CHECK(std::max<int64_t>(index.dim(), 1) == std::max<int64_t>(self.dim(), 1), Error,
              "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t k = 0; k < index.dim(); ++k) {
    EMBER_CHECK(k == d || index.sizes()[size_t(k)] <= self.sizes()[size_t(k)], Error, "Size does not match at dimension ",
                k, " expected index ", int_list(index.sizes()), " to be no larger than self ", int_list(self.sizes()),
                " apart from dimension ", d);
  }
  if (index.numel() > 0) {
    int64_t size = self.dim() == 0 ? 1 : self.sizes()[size_t(d)];
    int64_t lo = amin(index).item().to_int(), hi = amax(index).item().to_int();
    EMBER_CHECK(lo >= 0 && hi < size, Error, "index ", lo < 0 ? lo : hi, " is out of bounds for dimension ", d,
                " with size ", size);
  }
  // out[..., i_d, ...] = self[..., index[...], ...]: an advanced index with aranges on the other dims.
  std::vector<Tensor> indices;
  for (int64_t k = 0; k < index.dim(); ++k) {
    if (k == d) {
      indices.push_back(index);
      continue;
    }
    DimVector shape(size_t(index.dim()), 1);
    shape[size_t(k)] = index.sizes()[size_t(k)];
    indices.push_back(arange(index.sizes()[size_t(k)]).view(shape));
  }
  if (index.dim() == 0) indices.push_back(index);
  Tensor source = self.dim() == 0 ? self.reshape({1}) : self;
  Tensor r = autograd::untracked([&] { return index_impl(source, indices).view(index.sizes()); });
  if (autograd::needs_grad({&self})) autograd::record_gather(r, self, indices);
  return r;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  EMBER_CHECK(index.dim() <= 1, IndexError, "index_select(): Index is supposed to be a vector");
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, Error,
              "index_select(): Expected dtype int32 or int64 for index");
  if (self.has_sparse_layout() || index.has_sparse_layout()) [[unlikely]] {
    EMBER_CHECK(!index.has_sparse_layout(), NotImplementedError, "index_select: a sparse index is not supported");
    return sparse_index_select(self, dim, index);
  }
  int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK(self.dim() > 0 || index.numel() == 1, Error, "index_select(): Index to scalar can have only 1 value, "
              "got ", index.numel(), " value(s)");
  int64_t size = self.dim() == 0 ? 1 : self.sizes()[size_t(d)];
  Tensor flat = host_copy(index).to(kInt64).contiguous();  // the bounds are checked on the host
  bool empty_self = self.dim() > 1 && self.numel() == 0;
  EMBER_CHECK(!empty_self || flat.numel() == 0 || size > 0, Error,
              "index_select(): self indexing axis dim should be positive");
  const int64_t* values = flat.data_ptr<int64_t>();
  for (int64_t i = 0; i < flat.numel(); ++i) {  // no negative indices here, unlike x[idx]
    int64_t v = values[i];
    if (v >= 0 && v < size) continue;
    // torch's dim-1 kernel and its check for empty inputs (of 2+ dims) have their own error
    EMBER_CHECK(self.dim() < 2 || (d != 1 && !empty_self), Error, "INDICES element is out of DATA bounds, id=", v, " axis_dim=", size);
    throw IndexError("index out of range in self");
  }
  std::vector<Tensor> indices(static_cast<size_t>(d));
  indices.push_back(index.reshape({-1}));
  Tensor source = self.dim() == 0 ? self.reshape({1}) : self;
  Tensor r = autograd::untracked([&] {
    Tensor picked = index_impl(source, indices).contiguous();  // torch's index_select allocates contiguous
    return self.dim() == 0 ? picked.reshape({}) : picked;  // a 0-dim self gives a 0-dim result, as torch
  });
  if (autograd::needs_grad({&self})) autograd::record_index_select(r, self, indices);
  return r;
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  EMBER_CHECK(mask.dtype() == kBool, Error, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              dtype_info(mask.dtype()).cpp_name);
  // self and mask broadcast together into a contiguous result, as torch's out-of-place form
  Tensor r = autograd::untracked([&] {
    Tensor w = where(mask, scalar_tensor(value, self.options()), self).contiguous();
    return w.as_strided(w.sizes(), contiguous_strides(w.sizes()), w.storage_offset());  // size-1 dims' strides too
  });
  if (autograd::needs_grad({&self})) autograd::record_masked_fill(r, self, mask);
  return r;
}

namespace {

template <typename Value>
Tensor& masked_fill_in_place(Tensor& self, const Tensor& mask, const Value& value, bool value_needs_grad) {
  autograd::check_in_place(self);
  EMBER_CHECK(overlap(self, mask) != Overlap::Partial, Error, "unsupported operation: some elements of the input "
              "tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before "
              "performing the operation.");
  bool expanded = internal_overlap(self) == Overlap::Full;
  if (expanded) {  // torch warns, then writes only the filled elements
    warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before performing this "
         "operation. This also applies to advanced indexing e.g. tensor[mask] = scalar");
  }
  auto write_filled = [&](const Tensor&) {
    Tensor fill;
    if constexpr (std::is_same_v<Value, Scalar>) fill = scalar_tensor(value, self.options());
    else fill = value.detach().to(self.dtype());
    index_put_(self, {mask.expand(self.sizes())}, fill, false);
  };
  if (autograd::needs_grad({&self}) || value_needs_grad || autograd::writes_into_graph_view(self)) {
    std::function<void(const Tensor&)> write;
    if (expanded) write = write_filled;
    return autograd::record_in_place(self, [&] { return masked_fill(self, mask, value); }, write);
  }
  Tensor r = masked_fill(self, mask, value);  // also checks the value against self's dtype
  if (expanded) {
    write_filled(self);
    return self;
  }
  self.copy_(r);
  return self;
}

}  // namespace

Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  return masked_fill_in_place(self, mask, value, false);
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, Error, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  Tensor r = autograd::untracked([&] { return masked_fill(self, mask, value.item()); });
  if (autograd::needs_grad({&self, &value})) autograd::record_masked_fill(r, self, mask, value);
  return r;
}

Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value) {
  return masked_fill_in_place(self, mask, value, autograd::needs_grad({&value}));
}

}  // namespace ember

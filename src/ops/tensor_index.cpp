// x.index({...}) / x.index_put_({...}, v): integers, slices, None, Ellipsis and bools applied as views, tensor
// indices collected for index / index_put_, as torch's applySlicing (the Python x[...] comes here too).
#include "ember/indexing.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/errors.h"
#include "ember/layout.h"
#include "ember/ops.h"

namespace ember::indexing {

TensorIndex::TensorIndex(const char* str) : kind_(Kind::Ellipsis) {
  EMBER_CHECK(std::strcmp(str, "...") == 0, ValueError, "Expected \"...\" to represent an ellipsis index, but got \"",
              str, "\"");
}

namespace {

bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kUInt8; }

// A 0-dim integer tensor acts as a number (a 0-dim bool/uint8 one as a bool), as torch's applySlicing.
TensorIndex as_number(const TensorIndex& index) {
  if (!index.is_tensor() || index.tensor().dim() != 0 || !is_integral(index.tensor().dtype(), true)) return index;
  int64_t v = index.tensor().item().to_int();
  return is_mask(index.tensor()) ? TensorIndex(v != 0) : TensorIndex(v);
}

// The dims an index names: integers and slices one each, a mask tensor its rank, other tensors one.
int64_t count_specified(const std::vector<TensorIndex>& indices) {
  int64_t specified = 0;
  for (const TensorIndex& it : indices) {
    if (it.is_integer() || it.is_slice()) ++specified;
    if (it.is_tensor()) specified += is_mask(it.tensor()) && !it.counts_one_dim() ? it.tensor().dim() : 1;
  }
  return specified;
}

void check_count(const Tensor& self, int64_t specified) {
  EMBER_CHECK(specified <= self.dim(), IndexError, "too many indices for tensor of dimension ", self.dim());
}

// The copy torch makes for a bool index: dense, keeping the dim order, with the new dim
// treated as broadcast (stride 0) so it keeps its place, as torch's TensorIterator does.
Tensor copy_for_bool_index(const Tensor& v, int64_t pos) {
  DimVector strides(v.strides());
  strides[size_t(pos)] = 0;
  Tensor out = empty_strided(v.sizes(), infer_dense_strides(v.sizes(), strides), v.options());
  out.copy_(v);
  return out;
}

Tensor select_checked(const Tensor& t, int64_t dim, int64_t index, int64_t real_dim) {
  EMBER_CHECK(t.dim() > 0, IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
              "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  int64_t size = dim < t.dim() ? t.sizes()[size_t(dim)] : 0;  // past the last dim (after repeated ...): size 0
  EMBER_CHECK(index >= -size && index < size, IndexError, "index ", index, " is out of bounds for dimension ",
              real_dim, " with size ", size);
  return t.select(dim, index);
}

Tensor apply_slice(const Tensor& t, const Slice& s, int64_t dim) {
  EMBER_CHECK(s.step() > 0, ValueError, "step must be greater than zero");
  EMBER_CHECK(t.dim() > 0, IndexError, "slice() cannot be applied to a 0-dim tensor.");
  // Past the last dim (after repeated ... or a numpy mask) torch sees size 0: a whole slice is a no-op.
  if (dim >= t.dim() && s.start().value_or(0) == 0 && s.step() == 1 && s.stop().value_or(0) >= 0) return t;
  return t.slice(dim, s.start(), s.stop(), s.step());
}

// Whether the slice takes all of `dim` as written (start 0 or unset, stop at or past the end or unset, step 1):
// torch's applySlicing then skips it (no SliceBackward0; x[:, -2:] is still sliced).
bool whole_slice(const Tensor& t, const Slice& s, int64_t dim) {
  return dim < t.dim() && s.start().value_or(0) == 0 && s.step() == 1 &&
         s.stop().value_or(std::numeric_limits<int64_t>::max()) >= t.sizes()[size_t(dim)];
}

// The views of self, and the tensor indices (bools as [0] or [] into a new unit dim) for index / index_put_.
struct Indexed {
  Tensor view;
  std::vector<Tensor> indices;  // one per view dim from the first tensor index on; undefined: a whole dim
  DimVector bool_dims;          // view dims added by bools
  bool any_tensor = false;      // an index besides bools
};

Indexed apply_indices(const Tensor& self, const std::vector<TensorIndex>& items) {
  int64_t specified = count_specified(items);
  check_count(self, specified);
  Indexed r{self, {}, {}};
  int64_t dim = 0;
  auto record = [&](const Tensor& idx) {
    if (r.indices.empty()) r.indices.resize(size_t(dim));
    r.indices.push_back(idx);
    dim += is_mask(idx) ? idx.dim() : 1;
  };
  auto skip = [&](int64_t n) {  // whole dims: after the first tensor index they get empty slots
    if (!r.indices.empty()) r.indices.resize(r.indices.size() + size_t(n));
    dim += n;
  };
  for (size_t i = 0; i < items.size(); ++i) {
    TensorIndex it = as_number(items[i]);
    switch (it.kind()) {
      case TensorIndex::Kind::Integer: r.view = select_checked(r.view, dim, it.integer(), int64_t(i)); break;
      case TensorIndex::Kind::Slice:
        if (!whole_slice(r.view, it.slice(), dim)) r.view = apply_slice(r.view, it.slice(), dim);
        skip(1);
        break;
      case TensorIndex::Kind::Ellipsis: skip(self.dim() - specified); break;
      case TensorIndex::Kind::None: r.view = r.view.unsqueeze(dim); skip(1); break;
      case TensorIndex::Kind::Boolean:
        r.view = r.view.unsqueeze(dim);
        r.bool_dims.push_back(dim);
        record(it.boolean() ? zeros({1}, TensorOptions(kInt64).device(self.device()))
                            : empty({0}, TensorOptions(kInt64).device(self.device())));
        break;
      case TensorIndex::Kind::Tensor: r.any_tensor = true; record(it.tensor()); break;
    }
  }
  while (!r.indices.empty() && !r.indices.back().defined()) r.indices.pop_back();  // as torch's dispatch_index
  return r;
}

// Bools alone: the view with their unit dims merged into one (at the first bool's place when they
// are adjacent, else in front), of size 0 when any is false.
std::pair<Tensor, int64_t> bool_view(const Indexed& r, const std::vector<TensorIndex>& items) {
  bool all_true = true, adjacent = true;
  for (size_t i = 0, last = 0, seen = 0; i < items.size(); ++i) {
    TensorIndex it = as_number(items[i]);
    if (!it.is_boolean()) continue;
    all_true &= it.boolean();
    adjacent &= !seen++ || last == i - 1;
    last = i;
  }
  int64_t pos = adjacent ? r.bool_dims[0] : 0;
  Tensor v = r.view.squeeze(r.bool_dims).unsqueeze(pos);
  return {all_true ? v : v.slice(pos, 0, 0, 1), pos};
}

// torch strips leading unit dims of the value (x[0] = ones(1, 1, 4) for a (3, 4) x).
Tensor strip_leading_ones(const Tensor& v) {
  size_t k = 0;
  while (k < v.sizes().size() && v.sizes()[k] == 1) ++k;
  return k == 0 ? v : v.view(IntArrayRef(v.sizes().data() + k, v.sizes().size() - k));
}

// x[indices] = value, value a tensor or (when undefined) `number`; `single`: one entry written alone.
void set_impl(const Tensor& self, const std::vector<TensorIndex>& indices, const Tensor& value, const Scalar& number,
              bool single) {
  if (!value.defined()) number.check_fits(self.dtype());  // torch makes the value a tensor first, so it raises first
  const TensorIndex* one = single ? &indices[0] : nullptr;
  if (one && one->is_boolean() && !one->boolean()) return;  // torch writes nothing (no version bump, no node)
  Tensor target;
  if (one && one->is_integer()) {
    target = select_checked(self, 0, one->integer(), 0);
  } else if (one && one->is_slice()) {  // a whole slice as written gives self itself (torch's applySlicing)
    target = whole_slice(self, one->slice(), 0) ? self : apply_slice(self, one->slice(), 0);
  } else {
    Indexed r = apply_indices(self, indices);
    if (r.any_tensor || (!r.bool_dims.empty() && !(one && one->is_boolean()))) {  // bools in a list index, as torch
      index_put_(r.view, r.indices, value.defined() ? strip_leading_ones(value) : scalar_tensor(number, self.options()));
      return;
    }
    target = r.bool_dims.empty() ? r.view : bool_view(r, indices).first;
  }
  // torch's copy_to: copy_ between equal shapes, fill_ from a 0-dim CPU value, else copy_ of the expanded value
  if (!value.defined()) {
    target.fill_(scalar_tensor(number, self.options()));  // torch fills from the value made a tensor (FillBackward3)
  } else if (std::ranges::equal(value.sizes(), target.sizes())) {
    target.copy_(value);
  } else if (value.dim() == 0 && value.device().is_cpu()) {
    target.fill_(value);
  } else {
    target.copy_(strip_leading_ones(value).expand(target.sizes()));
  }
}

}  // namespace

void check_index_count(const Tensor& self, const std::vector<TensorIndex>& indices, int64_t invalid) {
  check_count(self, count_specified(indices) + invalid);
}

Tensor get_item(const Tensor& self, const TensorIndex& index) {
  if (index.is_integer()) return select_checked(self, 0, index.integer(), 0);
  if (index.is_slice()) return apply_slice(self, index.slice(), 0);
  return get_item(self, std::vector<TensorIndex>{index});
}

Tensor get_item(const Tensor& self, const std::vector<TensorIndex>& indices) {
  Indexed r = apply_indices(self, indices);
  if (r.any_tensor) return ember::index(r.view, r.indices);
  if (!r.bool_dims.empty()) {
    auto [v, pos] = bool_view(r, indices);
    if (!v.requires_grad()) return copy_for_bool_index(v, pos);
    // torch indexes with the bools as index tensors: one IndexBackward0 node over the view
    return autograd::run_function(
        "IndexBackward0", {v}, [&](autograd::AutogradContext&) { return autograd::TensorList{copy_for_bool_index(v, pos)}; },
        [](autograd::AutogradContext&, const autograd::TensorList& grads) { return grads; })[0];
  }
  return r.view.impl() == self.impl() ? self.alias() : r.view;  // x[...] is a new view, as torch
}

void set_item(const Tensor& self, const TensorIndex& index, const Tensor& value) {
  set_impl(self, {index}, value, Scalar(), true);
}
void set_item(const Tensor& self, const TensorIndex& index, const Scalar& value) {
  set_impl(self, {index}, Tensor(), value, true);
}
void set_item(const Tensor& self, const std::vector<TensorIndex>& indices, const Tensor& value) {
  set_impl(self, indices, value, Scalar(), false);
}
void set_item(const Tensor& self, const std::vector<TensorIndex>& indices, const Scalar& value) {
  set_impl(self, indices, Tensor(), value, false);
}

}  // namespace ember::indexing

// Shape utilities built from views and copies: stacking and splitting helpers, flip, roll, rot90, repeat, tile,
// repeat_interleave, broadcasting, meshgrid, products of sets, ravel (torch's composites and their node names).
#include <algorithm>
#include <numeric>

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/host.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/shape_utils.h"

namespace ember {

namespace {

// A result built from views of temporaries is a new tensor, not a view of them.
Tensor fresh(Tensor t) {
  t.impl()->view_base.reset();
  return t;
}

std::vector<Tensor> map(std::span<const Tensor> tensors, Tensor (*fn)(const Tensor&)) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(fn(t));
  return out;
}

void check_nonempty(std::span<const Tensor> tensors, const char* name) {
  EMBER_CHECK(!tensors.empty(), Error, name, " expects a non-empty TensorList");
}

// Each input as a column ((n) and 0-D as (n, 1)), as column_stack.
Tensor as_column(const Tensor& t) { return t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t; }

// The inputs of each stacking op, ready for cat along the returned dim.
std::pair<std::vector<Tensor>, int64_t> stack_parts(std::span<const Tensor> tensors, char kind) {
  switch (kind) {
    case 'h': {
      check_nonempty(tensors, "hstack");
      auto parts = map(tensors, atleast_1d);
      return {parts, parts[0].dim() == 1 ? 0 : 1};
    }
    case 'v': check_nonempty(tensors, "vstack"); return {map(tensors, atleast_2d), 0};
    case 'd': check_nonempty(tensors, "dstack"); return {map(tensors, atleast_3d), 2};
    default: check_nonempty(tensors, "column_stack"); return {map(tensors, as_column), 1};
  }
}

Tensor stack_as(std::span<const Tensor> tensors, char kind) {
  auto [parts, dim] = stack_parts(tensors, kind);
  return cat(parts, dim);
}

Tensor& stack_as_out(Tensor& out, std::span<const Tensor> tensors, char kind) {
  auto [parts, dim] = stack_parts(tensors, kind);
  return cat_out(out, parts, dim);
}

// tensor_split's pieces between consecutive boundaries (slices, clamped as Python's).
std::vector<Tensor> split_at(const Tensor& self, IntArrayRef bounds, int64_t dim) {
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t end : bounds) {
    out.push_back(self.slice(dim, start, end));
    start = end;
  }
  out.push_back(self.slice(dim, start, self.size(dim)));
  return out;
}

void check_split_rank(const Tensor& self) {
  EMBER_CHECK(self.dim() > 0, Error, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
              self.dim(), " dims");
}

// hsplit/vsplit/dsplit: the dim they split (checking the rank), and that `sections` divides it.
int64_t split_dim(const Tensor& self, char kind) {
  int64_t need = kind == 'h' ? 1 : kind == 'v' ? 2 : 3;
  EMBER_CHECK(self.dim() >= need, Error, "torch.", kind, "split requires a tensor with at least ", need,
              " dimension, but got a tensor with ", self.dim(), " dimensions!");
  return kind == 'h' ? (self.dim() == 1 ? 0 : 1) : kind == 'v' ? 0 : 2;
}

std::vector<Tensor> split_sections(const Tensor& self, int64_t sections, char kind) {
  int64_t dim = split_dim(self, kind);
  EMBER_CHECK(sections != 0 && self.size(dim) % sections == 0, Error, "torch.", kind, "split attempted to split along "
              "dimension ", dim, ", but the size of the dimension ", self.size(dim), " is not divisible by the split_size ",
              sections, "!");
  return tensor_split(self, sections, dim);
}

// Distinct wrapped dims, or torch's error for a repeated one.
DimVector unique_dims(IntArrayRef dims, int64_t ndim) {
  DimVector out;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim);
    EMBER_CHECK(std::find(out.begin(), out.end(), w) == out.end(), Error, "dim ", w,
                " appears multiple times in the list of dims");
    out.push_back(w);
  }
  return out;
}

// A shape as Python prints a tuple: (3,), (2, 3).
std::string python_tuple(IntArrayRef shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += str(i ? ", " : "", shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// The size of dim d, with torch's error for a 0-dim tensor.
int64_t size_at(const Tensor& t, int64_t d) {
  EMBER_CHECK(t.dim() > 0, IndexError, "Dimension specified as ", d, " but tensor has no dimensions");
  return t.size(d);
}

// An integer vector's values on the host, as int64 (a device vector is copied: the output's size depends on them).
std::vector<int64_t> host_ints(const Tensor& t) {
  Tensor c = host_copy(t).to(kInt64).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

}  // namespace

Tensor hstack(std::span<const Tensor> tensors) { return stack_as(tensors, 'h'); }
Tensor vstack(std::span<const Tensor> tensors) { return stack_as(tensors, 'v'); }
Tensor row_stack(std::span<const Tensor> tensors) { return stack_as(tensors, 'v'); }
Tensor dstack(std::span<const Tensor> tensors) { return stack_as(tensors, 'd'); }
Tensor column_stack(std::span<const Tensor> tensors) { return stack_as(tensors, 'c'); }
Tensor& hstack_out(Tensor& out, std::span<const Tensor> tensors) { return stack_as_out(out, tensors, 'h'); }
Tensor& vstack_out(Tensor& out, std::span<const Tensor> tensors) { return stack_as_out(out, tensors, 'v'); }
Tensor& row_stack_out(Tensor& out, std::span<const Tensor> tensors) { return stack_as_out(out, tensors, 'v'); }
Tensor& dstack_out(Tensor& out, std::span<const Tensor> tensors) { return stack_as_out(out, tensors, 'd'); }
Tensor& column_stack_out(Tensor& out, std::span<const Tensor> tensors) { return stack_as_out(out, tensors, 'c'); }

Tensor atleast_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }
Tensor atleast_2d(const Tensor& t) {
  if (t.dim() == 0) return t.reshape({1, 1});
  return t.dim() == 1 ? t.unsqueeze(0) : t;
}
Tensor atleast_3d(const Tensor& t) {
  switch (t.dim()) {
    case 0: return t.reshape({1, 1, 1});
    case 1: return t.unsqueeze(0).unsqueeze(-1);
    case 2: return t.unsqueeze(-1);
    default: return t;
  }
}

std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  check_split_rank(self);
  EMBER_CHECK(sections > 0, Error, "number of sections must be larger than 0, got ", sections);
  dim = wrap_dim(dim, self.dim());
  int64_t size = self.size(dim), base = size / sections, extra = size % sections;
  DimVector bounds;
  for (int64_t i = 0, end = 0; i + 1 < sections; ++i) bounds.push_back(end += base + (i < extra));
  return split_at(self, bounds, dim);
}

std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  check_split_rank(self);
  return split_at(self, indices, wrap_dim(dim, self.dim()));
}

std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& indices_or_sections, int64_t dim) {
  check_split_rank(self);
  EMBER_CHECK(indices_or_sections.device().is_cpu(), Error, "tensor_split expected tensor_indices_or_sections to be on "
              "cpu, but it's on ", indices_or_sections.device().str());
  EMBER_CHECK(indices_or_sections.dtype() == kInt64, Error, "tensor_split expected tensor_indices_or_sections to have "
              "dtype of long, but got ", legacy_name(indices_or_sections.dtype()));
  EMBER_CHECK(indices_or_sections.dim() <= 1, Error, "tensor_split expected tensor_indices_or_sections to be a "
              "zero-dimensional or one-dimensional tensor, but got a tensor with ", indices_or_sections.dim(), " dims");
  std::vector<int64_t> values = host_ints(indices_or_sections);
  if (indices_or_sections.dim() == 0) return tensor_split(self, values[0], dim);
  return tensor_split(self, IntArrayRef(values.data(), values.size()), dim);
}

std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) { return split_sections(self, sections, 'h'); }
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) { return split_sections(self, sections, 'v'); }
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) { return split_sections(self, sections, 'd'); }
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) { return tensor_split(self, indices, split_dim(self, 'h')); }
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) { return tensor_split(self, indices, split_dim(self, 'v')); }
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) { return tensor_split(self, indices, split_dim(self, 'd')); }

Tensor flip(const Tensor& self, IntArrayRef dims) {
  DimVector flipped = unique_dims(dims, self.dim());
  Tensor out = empty_like(self);
  if (self.numel() > 0) {
    // self read backwards along the flipped dims: one strided copy
    DimVector strides(self.strides());
    int64_t offset = self.storage_offset();
    for (int64_t d : flipped) {
      if (d >= self.dim()) continue;  // dim 0 of a 0-D tensor
      offset += (self.size(d) - 1) * strides[d];
      strides[d] = -strides[d];
    }
    Tensor reversed = Tensor::make(self.storage(), DimVector(self.sizes()), strides, offset, self.dtype());
    kernels::copy[out.device()](out, reversed);
  }
  if (autograd::needs_grad({&self})) autograd::record_flip(out, self, flipped);
  return out;
}

Tensor fliplr(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, Error, "Input must be >= 2-d.");
  return flip(self, {1});
}

Tensor flipud(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, Error, "Input must be >= 1-d.");
  return flip(self, {0});
}

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  EMBER_CHECK(!shifts.empty(), Error, "`shifts` required");
  bool flat = dims.empty() && shifts.size() == 1;
  EMBER_CHECK(flat || shifts.size() == dims.size(), Error, "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  EMBER_CHECK(flat || self.dim() > 0, IndexError, "Dimension specified as ", dims[0], " but tensor has no dimensions");
  Tensor out = autograd::untracked([&]() -> Tensor {
    if (self.numel() == 0) return self.clone();  // torch's layout for an empty input
    Tensor src = flat ? self.reshape({-1}) : self;
    // the shift of each dim (repeated dims add up), taken modulo its size
    DimVector shift(size_t(std::max<int64_t>(src.dim(), 1)), 0);
    for (size_t i = 0; i < shifts.size(); ++i) shift[size_t(flat ? 0 : wrap_dim(dims[i], src.dim()))] += shifts[i];
    Tensor r = empty(src.sizes(), src.options());
    if (src.dim() == 0) return r.copy_(src);
    DimVector moved;
    for (int64_t d = 0; d < src.dim(); ++d) {
      int64_t n = std::max<int64_t>(src.size(d), 1);
      shift[size_t(d)] = ((shift[size_t(d)] % n) + n) % n;
      if (shift[size_t(d)] != 0) moved.push_back(d);
    }
    // one block copy per choice of (head, tail) in each moved dim
    for (uint64_t mask = 0; mask < (uint64_t(1) << moved.size()); ++mask) {
      Tensor to = r, from = src;
      for (size_t k = 0; k < moved.size(); ++k) {
        int64_t d = moved[k], n = src.size(d), s = shift[size_t(d)];
        bool head = (mask >> k) & 1;  // the last s elements wrap around to the front
        to = head ? to.narrow(d, 0, s) : to.narrow(d, s, n - s);
        from = head ? from.narrow(d, n - s, s) : from.narrow(d, 0, n - s);
      }
      kernels::copy[r.device()](to, from);
    }
    return fresh(r.view(self.sizes()));
  });
  if (autograd::needs_grad({&self})) autograd::record_roll(out, self, shifts, dims);
  return out;
}

Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  int64_t n = self.dim();
  EMBER_CHECK(dims.size() == 2, Error, "expected total rotation dims == 2, but got dims = ", dims.size());
  EMBER_CHECK(n >= 2, Error, "expected total dims >= 2, but got total dims = ", n);
  EMBER_CHECK(wrap_dim(dims[0], n) != wrap_dim(dims[1], n), Error, "expected rotation dims to be different, but got "
              "dim0 = ", dims[0], " and dim1 = ", dims[1]);
  int64_t turns = ((k % 4) + 4) % 4;
  Tensor out = autograd::untracked([&]() -> Tensor {
    switch (turns) {
      case 1: return fresh(flip(self, {dims[1]}).transpose(dims[0], dims[1]));
      case 2: return flip(self, dims);
      case 3: return fresh(flip(self, {dims[0]}).transpose(dims[0], dims[1]));
      default: return empty(self.sizes(), self.options()).copy_(self);
    }
  });
  if (autograd::needs_grad({&self})) autograd::record_rot90(out, self, k, dims);
  return out;
}

Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  EMBER_CHECK(!self.has_sparse_layout(), Error, "expand is unsupported for Sparse tensors");  // torch's repeat expands
  EMBER_CHECK(int64_t(repeats.size()) >= self.dim(), Error, "Number of dimensions of repeat dims can not be smaller "
              "than number of dimensions of tensor");
  size_t pad = repeats.size() - size_t(self.dim());
  // The result viewed as (r0, s0, r1, s1, ...) is self's padded view with stride 0 along each r.
  DimVector target, split, split_strides;
  for (size_t i = 0; i < repeats.size(); ++i) {
    int64_t size = i < pad ? 1 : self.sizes()[i - pad], stride = i < pad ? 0 : self.strides()[i - pad];
    target.push_back(size * repeats[i]);
    split.push_back(repeats[i]);
    split.push_back(size);
    split_strides.push_back(0);
    split_strides.push_back(stride);
  }
  Tensor out = empty(target, self.options());
  if (out.numel() > 0) {
    Tensor src = Tensor::make(self.storage(), split, split_strides, self.storage_offset(), self.dtype());
    kernels::copy[out.device()](Tensor::make(out.storage(), split, contiguous_strides(split), 0, out.dtype()), src);
  }
  if (autograd::needs_grad({&self})) autograd::record_repeat(out, self, repeats);
  return out;
}

Tensor tile(const Tensor& self, IntArrayRef dims) {
  DimVector repeats(dims);
  while (int64_t(repeats.size()) < self.dim()) repeats.insert(0, 1);
  return repeat(self, repeats);
}

Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  Tensor input = dim ? self : self.flatten();
  int64_t d = wrap_dim(dim.value_or(0), self.dim());
  EMBER_CHECK(repeats >= 0, Error, "Repeats must be non-negative");
  Tensor unsqueezed = input.unsqueeze(d + 1);
  DimVector sizes(unsqueezed.sizes());
  sizes[size_t(d) + 1] = repeats;
  EMBER_CHECK(!output_size || *output_size == sizes[size_t(d)] * repeats, Error, "repeat_interleave: Invalid "
              "output_size, expected ", sizes[size_t(d)] * repeats, " but got ", *output_size);
  Tensor expanded = unsqueezed.expand(sizes);
  return (expanded.is_contiguous() ? expanded.clone() : expanded.contiguous()).flatten(d, d + 1);
}

Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  Tensor input = dim ? self : self.flatten();
  int64_t d = wrap_dim(dim.value_or(0), input.dim());
  int64_t size = size_at(input, d);
  Tensor counts = repeats;
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.size(0) == 1)) {
    counts = repeats.reshape({1}).expand({size});
  } else {
    EMBER_CHECK(repeats.dim() == 1, Error, "repeats must be 0-dim or 1-dim tensor");
    EMBER_CHECK(repeats.size(0) == size, Error, "repeats must have the same size as input along dim, but got "
                "repeats.size(0) = ", repeats.size(0), " and input.size(", d, ") = ", size);
  }
  return input.index_select(d, repeat_interleave(counts, output_size));
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1, Error, "repeat_interleave only accept 1D vector as repeat");
  EMBER_CHECK(repeats.dtype() == kInt32 || repeats.dtype() == kInt64, NotImplementedError,
              "\"repeat_interleave_cpu\" not implemented for '", legacy_name(repeats.dtype()), "'");
  std::vector<int64_t> counts = host_ints(repeats);
  int64_t total = 0;
  for (int64_t c : counts) {
    EMBER_CHECK(c >= 0, Error, "repeats can not be negative");
    total += c;
  }
  EMBER_CHECK(!output_size || *output_size == total, Error, "allocated size does not match required size");
  std::vector<int64_t> values;
  values.reserve(size_t(total));
  for (size_t i = 0; i < counts.size(); ++i) values.insert(values.end(), size_t(counts[i]), int64_t(i));
  return tensor(values, {total}, repeats.options().with_dtype(kInt64)).to(repeats.dtype());
}

std::vector<Tensor> broadcast_tensors(std::span<const Tensor> tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes());
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) {
    bool same = std::equal(shape.begin(), shape.end(), t.sizes().begin(), t.sizes().end());
    out.push_back(same ? t : t.expand(shape));
  }
  return out;
}

DimVector broadcast_shapes(std::span<const DimVector> shapes) {
  size_t rank = 0;
  for (const DimVector& s : shapes) rank = std::max(rank, s.size());
  DimVector common(rank, 1);
  for (size_t arg = 0; arg < shapes.size(); ++arg) {
    const DimVector& shape = shapes[arg];
    for (size_t k = 1; k <= shape.size(); ++k) {
      int64_t have = shape[shape.size() - k];
      int64_t& want = common[rank - k];
      if (have == want) continue;
      if (want == 1) {
        EMBER_CHECK(have >= 0, ValueError, "Attempting to broadcast a dimension with negative length!");
        want = have;
      }
      EMBER_CHECK(have == 1 || have == want, Error, "Attempting to broadcast a dimension of length ", have, " at -", k,
                  "! Mismatching argument at index ", arg, " had ", python_tuple(shape), "; but expected shape should be "
                  "broadcastable to ", int_list(common));
    }
  }
  return common;
}

Tensor broadcast_to(const Tensor& self, IntArrayRef sizes) { return self.expand(sizes); }

std::vector<Tensor> meshgrid(std::span<const Tensor> tensors, std::string_view indexing) {
  check_nonempty(tensors, "meshgrid");
  for (size_t i = 0; i + 1 < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dtype() == tensors[i + 1].dtype(), Error, "meshgrid expects all tensors to have the same dtype");
    EMBER_CHECK(tensors[i].device() == tensors[i + 1].device(), Error,
                "meshgrid expects all tensors to have the same device");
  }
  EMBER_CHECK(indexing == "ij" || indexing == "xy", Error, "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", "
              "but received: ", indexing);
  size_t n = tensors.size();
  // "xy" lays the first two inputs along dims 1 and 0
  auto place = [&](size_t i) { return indexing == "xy" && n >= 2 && i < 2 ? 1 - i : i; };
  DimVector shape(n);
  for (size_t i = 0; i < n; ++i) {
    EMBER_CHECK(tensors[i].dim() <= 1, Error, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ",
                tensors[i].repr());
    shape[place(i)] = tensors[i].numel();
  }
  std::vector<Tensor> grids;
  for (size_t i = 0; i < n; ++i) {
    DimVector view(n, 1);
    view[place(i)] = -1;
    grids.push_back(tensors[i].view(view).expand(shape));
  }
  return grids;
}

Tensor cartesian_prod(std::span<const Tensor> tensors) {
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.dim() == 1, Error, "Expect a 1D vector, but got shape ", int_list(t.sizes()));
  }
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> grids = meshgrid(tensors, "ij");
  for (Tensor& g : grids) g = g.flatten();
  return stack(grids, 1);
}

Tensor combinations(const Tensor& self, int64_t r, bool with_replacement) {
  EMBER_CHECK(self.dim() == 1, Error, "Expect a 1D vector, but got shape ", int_list(self.sizes()));
  EMBER_CHECK(r >= 0, Error, "Expect a non-negative number, but got ", r);
  if (r == 0) return empty({0}, self.options());
  // The index tuples in lexicographic order (strictly increasing, or non-decreasing with replacement), as columns.
  int64_t n = self.size(0);
  std::vector<std::vector<int64_t>> columns(static_cast<size_t>(r));
  DimVector idx(size_t(r), 0);
  auto first_at = [&](size_t k) { return k == 0 ? 0 : idx[k - 1] + (with_replacement ? 0 : 1); };
  auto last_at = [&](size_t k) { return with_replacement ? n - 1 : n - r + int64_t(k); };
  for (size_t k = 0; k < size_t(r); ++k) idx[k] = first_at(k);
  bool any = with_replacement ? n > 0 : r <= n;
  while (any) {
    for (size_t k = 0; k < size_t(r); ++k) columns[k].push_back(idx[k]);
    size_t k = size_t(r);  // the last position that can still advance; the ones after it restart
    while (k-- > 0 && idx[k] == last_at(k)) {}
    if (k == size_t(-1)) break;
    ++idx[k];
    for (size_t j = k + 1; j < size_t(r); ++j) idx[j] = first_at(j);
  }
  std::vector<Tensor> picked;
  for (const auto& col : columns) {
    picked.push_back(self.index_select(0, tensor(col, {int64_t(col.size())}, TensorOptions(kInt64).device(self.device()))));
  }
  return stack(picked, 1);
}

Tensor ravel(const Tensor& self) { return self.contiguous().view({-1}); }

}  // namespace ember

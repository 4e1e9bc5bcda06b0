// Arithmetic, sums, transposes and copies of sparse tensors, computed on their indices and values.
#include <algorithm>
#include <vector>

#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/scatter.h"
#include "ember/type_promotion.h"
#include "sparse_internal.h"

namespace ember {

using sparse_detail::make_coo;
using sparse_detail::record_pass_through;
using sparse_detail::with_values;

namespace {

Tensor as_coo(const Tensor& t) { return t.is_sparse_csr() ? sparse_detail::csr_to_coo(t) : t; }
Tensor like_layout(const Tensor& coo, Layout layout) {
  return layout == Layout::SparseCsr ? sparse_detail::coo_to_csr(coo) : coo;
}

void check_same_sizes(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(std::ranges::equal(a.sizes(), b.sizes()), Error, op, ": expected sizes of 'self' and 'other' to match, "
              "but ", int_list(a.sizes()), " != ", int_list(b.sizes()));
}

void check_same_layout(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.layout() == b.layout(), NotImplementedError, op, " of a ", layout_name(a.layout()), " and a ",
              layout_name(b.layout()), " tensor is not supported; convert one (to_sparse(), to_sparse_csr())");
}

// torch's merge of two coordinate lists (each taken in its own order): the smaller coordinate first, equal ones
// summed. Returns, per output entry, where its a and b values come from (-1: none). Indices are (dims, n) on the host.
void merge(const Tensor& ia, const Tensor& ib, std::vector<int64_t>& from_a, std::vector<int64_t>& from_b) {
  const int64_t *x = ia.data_ptr<int64_t>(), *y = ib.data_ptr<int64_t>();
  const int64_t dims = ia.size(0), na = ia.size(1), nb = ib.size(1);
  auto compare = [&](int64_t i, int64_t j) {
    for (int64_t d = 0; d < dims; ++d) {
      if (x[d * na + i] != y[d * nb + j]) return x[d * na + i] < y[d * nb + j] ? -1 : 1;
    }
    return 0;
  };
  from_a.reserve(size_t(na + nb));
  from_b.reserve(size_t(na + nb));
  int64_t i = 0, j = 0;
  while (i < na || j < nb) {
    int c = i == na ? 1 : j == nb ? -1 : compare(i, j);
    from_a.push_back(c <= 0 ? i++ : -1);
    from_b.push_back(c >= 0 ? j++ : -1);
  }
}

// Rows of `a` and/or `b` (values, contiguous) placed per merge entry: a's, b's, or their sum.
template <typename T>
void merged_rows(const T* a, const T* b, T* out, int64_t row, const std::vector<int64_t>& from_a,
                 const std::vector<int64_t>& from_b) {
  for (size_t k = 0; k < from_a.size(); ++k) {
    T* o = out + int64_t(k) * row;
    const T* va = from_a[k] >= 0 ? a + from_a[k] * row : nullptr;
    const T* vb = from_b[k] >= 0 ? b + from_b[k] * row : nullptr;
    for (int64_t e = 0; e < row; ++e) {
      o[e] = va && vb ? sparse_detail::add_elements(va[e], vb[e]) : va ? va[e] : vb[e];
    }
  }
}

Tensor add_sparse_sparse(const Tensor& a_in, const Tensor& b_in, const Scalar& alpha) {
  check_same_layout("add", a_in, b_in);
  check_same_sizes("add", a_in, b_in);
  Tensor a = as_coo(a_in), b = as_coo(b_in);
  const SparseParts &pa = *a.impl()->sparse, &pb = *b.impl()->sparse;
  ScalarType dtype = promote_types(a.dtype(), b.dtype());
  Tensor ia = pa.indices.contiguous(), ib = pb.indices.contiguous();
  std::vector<int64_t> from_a, from_b;
  merge(ia, ib, from_a, from_b);
  int64_t n = int64_t(from_a.size()), dims = ia.size(0);
  Tensor indices = empty({dims, n}, TensorOptions(kInt64));
  for (int64_t d = 0; d < dims; ++d) {  // an index column of a merged entry is a's or b's (equal where both)
    const int64_t *x = ia.data_ptr<int64_t>() + d * ia.size(1), *y = ib.data_ptr<int64_t>() + d * ib.size(1);
    int64_t* o = indices.data_ptr<int64_t>() + d * n;
    for (int64_t k = 0; k < n; ++k) o[k] = from_a[size_t(k)] >= 0 ? x[from_a[size_t(k)]] : y[from_b[size_t(k)]];
  }
  Tensor va = pa.values.to(dtype).contiguous(), vb = pb.values.to(dtype).contiguous();
  if (alpha.is_floating_point() || alpha.to_int() != 1) vb = mul(vb, wrapped_scalar(alpha));  // torch's t + alpha * s
  Tensor values = empty(sparse_detail::concat({n}, sparse_detail::tail(va.sizes(), 1)), va.options());
  int64_t row = n == 0 ? 0 : values.numel() / n;
  visit_dtype(dtype, [&]<typename T>(T) {
    merged_rows(va.data_ptr<T>(), vb.data_ptr<T>(), values.data_ptr<T>(), row, from_a, from_b);
  });
  return like_layout(make_coo(indices, values, DimVector(a.sizes()), pa.coalesced && pb.coalesced), a_in.layout());
}

// Coalesced intersection of two sparse tensors (values multiplied).
Tensor mul_sparse_sparse(const Tensor& a_in, const Tensor& b_in) {
  check_same_layout("mul", a_in, b_in);
  check_same_sizes("mul", a_in, b_in);
  Tensor a = coalesce(as_coo(a_in)), b = coalesce(as_coo(b_in));
  const SparseParts &pa = *a.impl()->sparse, &pb = *b.impl()->sparse;
  Tensor ia = pa.indices.contiguous(), ib = pb.indices.contiguous();
  std::vector<int64_t> from_a, from_b;
  merge(ia, ib, from_a, from_b);
  std::vector<int64_t> both_a, both_b;
  for (size_t k = 0; k < from_a.size(); ++k) {
    if (from_a[k] >= 0 && from_b[k] >= 0) { both_a.push_back(from_a[k]); both_b.push_back(from_b[k]); }
  }
  Tensor sa = sparse_detail::int64_tensor(both_a), sb = sparse_detail::int64_tensor(both_b);
  Tensor values = mul(pa.values.index_select(0, sa), pb.values.index_select(0, sb));
  if (values.dim() > 1) values = add(values, wrapped_scalar(0));  // torch's kernel accumulates dense rows from +0
  return like_layout(make_coo(ia.index_select(1, sa), values, DimVector(a.sizes()), true), a_in.layout());
}

}  // namespace

Tensor sparse_add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  EMBER_CHECK(!a.has_sparse_layout() || b.has_sparse_layout(), Error,
              "add(sparse, dense) is not supported. Use add(dense, sparse) instead.");
  EMBER_CHECK(a.has_sparse_layout() || std::ranges::equal(a.sizes(), b.sizes()), Error, "add: expected 'self' and "
              "'other' to have same size, but self has size ", int_list(a.sizes()), " while other has size ",
              int_list(b.sizes()), " (FYI: dense-sparse addition does not currently support broadcasting)");
  return autograd::untracked([&] {
    if (a.has_sparse_layout()) return add_sparse_sparse(a, b, alpha);
    ScalarType dtype = promote_types(a.dtype(), b.dtype());
    if (dtype == kBool) return add(a, sparse_to_dense(b), alpha);
    Tensor r = empty(a.sizes(), a.options().with_dtype(dtype)).copy_(a);  // contiguous, as torch's result
    add_sparse_into(r, b, alpha);
    return r;
  });
}

void add_sparse_into(Tensor& dense, const Tensor& sparse, const Scalar& alpha) {
  Tensor s = as_coo(sparse);
  const SparseParts& p = *s.impl()->sparse;
  if (p.values.numel() == 0) return;
  autograd::NoGradGuard no_grad;
  Tensor values = mul(p.values, wrapped_scalar(alpha)).to(dense.dtype());
  if (p.indices.size(0) == 0) {  // no sparse dims (a 0-dim tensor): every entry adds to the whole
    add_out(dense, dense, sum(values, {0}), 1);
    return;
  }
  std::vector<Tensor> coordinates;
  for (int64_t d = 0; d < p.indices.size(0); ++d) coordinates.push_back(p.indices.select(0, d));
  index_put_(dense, coordinates, values, true);  // duplicate coordinates accumulate
}

Tensor sparse_mul(const Tensor& a, const Tensor& b) {
  return autograd::untracked([&] {
    if (a.has_sparse_layout() && b.has_sparse_layout()) return mul_sparse_sparse(a, b);
    const Tensor& s = a.has_sparse_layout() ? a : b;
    const Tensor& d = a.has_sparse_layout() ? b : a;
    if (d.dim() == 0) return with_values(s, a.has_sparse_layout() ? mul(s.impl()->sparse->values, d)
                                                                    : mul(d, s.impl()->sparse->values));
    EMBER_CHECK(s.is_sparse(), NotImplementedError, "mul of a sparse_csr tensor and a dense tensor is not supported");
    DimVector shape = broadcast_shapes(s.sizes(), d.sizes());
    EMBER_CHECK(std::ranges::equal(shape, s.sizes()), NotImplementedError, "mul of a sparse tensor of size ",
                int_list(s.sizes()), " and a dense tensor of size ", int_list(d.sizes()), " broadcasts to ",
                int_list(shape), ", past the sparse tensor: not supported");
    Tensor dense_values = sparse_detail::values_at(d.expand(s.sizes()), s);
    return with_values(s, mul(s.impl()->sparse->values, dense_values));
  });
}

Tensor sparse_div(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode) {
  EMBER_CHECK(a.has_sparse_layout() && !b.has_sparse_layout() && b.dim() == 0, Error,
              "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape ", int_list(b.sizes()),
              " for divisor)");
  EMBER_CHECK(a.is_sparse(), Error, "unsupported tensor layout: SparseCsr");
  return autograd::untracked([&] {
    // A rounded quotient is not linear: duplicates are summed first, as torch does.
    Tensor s = rounding_mode ? coalesce(a) : a;
    return with_values(s, div(s.impl()->sparse->values, b, rounding_mode));
  });
}

namespace {

// The unary ops torch runs on sparse tensors (f(0) = 0; neg is linear, so duplicates need no summing first).
bool linear_unary(std::string_view op) { return op == "neg" || op == "positive"; }
void check_sparse_unary(const char* name, const Tensor& a) {
  static constexpr std::string_view kZeroPreserving[] = {
      "abs", "asin", "asinh", "atan", "atanh", "ceil", "deg2rad", "erf", "erfinv", "expm1", "floor", "frac", "log1p",
      "rad2deg", "relu", "round", "sgn", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc"};
  std::string_view op(name);
  if (!linear_unary(op) && std::ranges::find(kZeroPreserving, op) == std::end(kZeroPreserving)) {
    EMBER_CHECK(!a.is_sparse_csr(), Error, "unsupported tensor layout: SparseCsr");
    throw_sparse_unsupported(a, name);
  }
}

// fn applied to a's values (coalesced first unless fn is linear), its gradient recorded as `name`'s (flagged coalesced
// unless `flagged_gradient` is false).
Tensor map_values(const char* name, const Tensor& a, const std::function<Tensor(const Tensor&)>& fn,
                  bool flagged_gradient = true) {
  bool linear = linear_unary(name);
  Tensor s = autograd::untracked([&] { return linear || !a.is_sparse() ? a : coalesce(a); });
  Tensor r = autograd::untracked([&] { return with_values(s, fn(s.impl()->sparse->values)); });
  if (autograd::needs_grad({&a})) sparse_detail::record_unary(name, r, a, s, fn, flagged_gradient);
  return r;
}

}  // namespace

Tensor sparse_unary(const char* name, const Tensor& a, Tensor (*fn)(const Tensor&)) {
  check_sparse_unary(name, a);
  return map_values(name, a, fn);
}

Tensor sparse_pow(const Tensor& a, const Scalar& exponent) {
  EMBER_CHECK(!a.is_sparse_csr(), Error, "unsupported tensor layout: SparseCsr");
  EMBER_CHECK(exponent.to_double() != 0, Error,
              "pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor dense");
  Tensor e = wrapped_scalar(exponent);
  ScalarType dtype = result_type(std::vector<Tensor>{a.impl()->sparse->values, e});
  EMBER_CHECK(dtype == a.dtype(), Error, "result type ", legacy_name(dtype),
              " can't be cast to the desired output type ", legacy_name(a.dtype()));
  return map_values("pow", a, [e](const Tensor& v) { return pow(v, e); }, false);
}

void sparse_unary_out(const char* name, Tensor& out, const Tensor& a, Tensor (*fn)(const Tensor&)) {
  std::string_view op(name);
  if (out.is_same(a)) {
    if (op == "square") throw_sparse_unsupported(a, "pow_.Scalar");  // torch's square_ is pow_
    check_sparse_unary(name, a);
    EMBER_CHECK(linear_unary(op) || !a.is_sparse() || a.is_coalesced(), Error, name, "_ requires coalesced input");
  }
  sparse_copy_(out, sparse_unary(name, a, fn));
}

// ---- sums

Tensor sparse_sum(const Tensor& t, std::optional<ScalarType> dtype, bool masked) {
  Tensor r = autograd::untracked([&] { return sum(t.impl()->sparse->values, {}, false, dtype); });
  if (!autograd::needs_grad({&t})) return r;
  if (masked) {
    sparse_detail::record_sparse_sum(r, t);
  } else {
    DimVector in_sizes(t.sizes());
    sparse_detail::record_dense_gradient("SumBackward0", r, t, [in_sizes](const Tensor& g) {
      return g.expand(in_sizes);
    });
  }
  return r;
}

Tensor sparse_sum(const Tensor& t, IntArrayRef dims_in, bool keepdim, std::optional<ScalarType> dtype, bool masked) {
  if (dims_in.empty()) return sparse_sum(t, dtype, masked);
  EMBER_CHECK(t.is_sparse(), Error, "reduction operations on CSR tensors with keepdim=False is unsupported");
  EMBER_CHECK(t.dim() > 0, Error, "Trying to create tensor with negative dimension -1: [-1, 1]");
  int64_t sparse_dim = t.sparse_dim();
  std::vector<bool> reduce(size_t(t.dim()), false);
  for (int64_t d : dims_in) {
    int64_t w = wrap_dim(d, t.dim());
    EMBER_CHECK(!reduce[size_t(w)], Error, "dim ", w, " appears multiple times in the list of dims");
    reduce[size_t(w)] = true;
  }
  // Dense dims are summed within the values; summed sparse dims drop from the indices (then coalesced).
  Tensor r = autograd::untracked([&] {
    Tensor values = t.impl()->sparse->values;
    if (dtype) values = values.to(*dtype);
    else if (!is_floating_point(values.dtype())) values = values.to(kInt64);
    DimVector value_dims;
    for (int64_t d = sparse_dim; d < t.dim(); ++d) if (reduce[size_t(d)]) value_dims.push_back(d - sparse_dim + 1);
    if (!value_dims.empty()) values = sum(values, value_dims);
    std::vector<int64_t> kept;
    DimVector sizes;
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (reduce[size_t(d)]) continue;
      sizes.push_back(t.size(d));
      if (d < sparse_dim) kept.push_back(d);
    }
    Tensor r = kept.empty() ? sum(values, {0})
        : coalesce(make_coo(t.impl()->sparse->indices.index_select(0, sparse_detail::int64_tensor(kept)), values,
                            sizes, false));
    // keepdim: torch sums, then unsqueezes (a kept dim of a sparse result becomes a sparse dim)
    for (size_t d = 0; d < reduce.size() && keepdim; ++d) if (reduce[d]) r = r.unsqueeze(int64_t(d));
    return r;
  });
  DimVector in_sizes(t.sizes());
  sparse_detail::record_dense_gradient(masked ? "SparseSumBackward0" : "SumBackward1", r, t,
                                       [in_sizes, reduce, keepdim](const Tensor& g) {
    Tensor grad = g;  // each summed element's gradient is its sum's
    for (size_t d = 0; d < reduce.size() && !keepdim; ++d) if (reduce[d]) grad = grad.unsqueeze(int64_t(d));
    return grad.expand(in_sizes);
  });
  return r;
}

// ---- shape and copies

Tensor sparse_transpose(const Tensor& t, int64_t dim0, int64_t dim1, const char* node) {
  EMBER_CHECK(t.is_sparse(), NotImplementedError, "transpose of a sparse_csr tensor is not supported (it would be "
              "sparse_csc); convert with to_sparse() first");
  int64_t d0 = wrap_dim(dim0, t.dim()), d1 = wrap_dim(dim1, t.dim());
  if (d0 == d1) return t;  // torch's transpose of a dim with itself
  int64_t sparse_dim = t.sparse_dim();
  EMBER_CHECK(d0 < sparse_dim && d1 < sparse_dim, Error, "sparse transpose: transposed dimensions must be sparse ",
              "Got sparse_dim: ", sparse_dim, ", d0: ", d0, ", d1: ", d1);
  Tensor r = autograd::untracked([&] {
    Tensor indices = t.impl()->sparse->indices.clone();
    indices.select(0, d0).copy_(t.impl()->sparse->indices.select(0, d1));
    indices.select(0, d1).copy_(t.impl()->sparse->indices.select(0, d0));
    DimVector sizes(t.sizes());
    std::swap(sizes[size_t(d0)], sizes[size_t(d1)]);
    Tensor transposed = make_coo(indices, t.impl()->sparse->values, sizes, false);
    transposed.impl()->sparse->coalesced = false;  // torch's flag, even for one entry
    return transposed;
  });
  sparse_detail::record_dense_gradient(node, r, t, [d0, d1](const Tensor& g) { return g.transpose(d0, d1); });
  return r;
}

Tensor sparse_clone(const Tensor& t) {
  Tensor r = autograd::untracked([&] { return with_values(t, t.impl()->sparse->values.clone()); });
  if (autograd::needs_grad({&t})) record_pass_through("CloneBackward0", r, t);
  return r;
}

Tensor sparse_to(const Tensor& t, std::optional<ScalarType> dtype, std::optional<Device> device) {
  bool same_dtype = !dtype || *dtype == t.dtype(), same_device = !device || device->type == t.device().type;
  if (same_dtype && same_device) return t;
  EMBER_CHECK(same_device, NotImplementedError, "sparse tensors are CPU-only in Ember: cannot move a ",
              layout_name(t.layout()), " tensor to ", device->str());
  Tensor r = autograd::untracked([&] { return with_values(t, t.impl()->sparse->values.to(*dtype)); });
  if (autograd::needs_grad({&t})) record_pass_through("ToCopyBackward0", r, t);
  return r;
}

Tensor sparse_detach(const Tensor& t) {
  SparseParts parts = *t.impl()->sparse;
  parts.values = parts.values.detach();
  return sparse_detail::make_sparse(std::move(parts), DimVector(t.sizes()));
}

Tensor sparse_zeros_like(const Tensor& t, std::optional<ScalarType> dtype) {
  TensorOptions options = TensorOptions(dtype.value_or(t.dtype())).device(t.device());
  if (t.is_sparse_csr()) {
    return sparse_detail::make_csr(zeros({t.size(0) + 1}, t.impl()->sparse->indices.options()),
                                   empty({0}, t.impl()->sparse->indices.options()), empty({0}, options),
                                   DimVector(t.sizes()));
  }
  DimVector value_sizes = sparse_detail::concat({0}, sparse_detail::tail(t.sizes(), t.sparse_dim()));
  return make_coo(empty({t.sparse_dim(), 0}, TensorOptions(kInt64)), empty(value_sizes, options),
                  DimVector(t.sizes()), true);
}

Tensor sparse_empty_like(const Tensor& t, std::optional<ScalarType> dtype) {
  if (!t.is_sparse_csr()) return sparse_zeros_like(t, dtype);
  const SparseParts& p = *t.impl()->sparse;
  Tensor values = zeros(p.values.sizes(), TensorOptions(dtype.value_or(t.dtype())));
  return sparse_detail::make_csr(p.indices.clone(), p.col_indices.clone(), values, DimVector(t.sizes()));
}

void sparse_copy_(Tensor& self, const Tensor& src) {
  EMBER_CHECK(self.has_sparse_layout() && src.has_sparse_layout(), Error, "copy_() between dense and sparse Tensors "
              "is not implemented! Found self type = torch.", self.has_sparse_layout() ? "sparse." : "",
              legacy_name(self.dtype()), "Tensor and src type = torch.", src.has_sparse_layout() ? "sparse." : "",
              legacy_name(src.dtype()), "Tensor");
  check_same_layout("copy_", self, src);
  check_same_sizes("copy_", self, src);
  SparseParts parts = *src.impl()->sparse;
  parts.indices = parts.indices.clone();
  if (parts.col_indices.defined()) parts.col_indices = parts.col_indices.clone();
  parts.values = parts.values.to(self.dtype(), /*copy=*/true);
  *self.impl()->sparse = std::move(parts);
  self.bump_version();
}

void sparse_zero_(Tensor& self) {
  Tensor empty_like_self = sparse_zeros_like(self);
  *self.impl()->sparse = *empty_like_self.impl()->sparse;
  self.bump_version();
}

}  // namespace ember

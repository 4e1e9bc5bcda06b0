// The scatter family: scatter, scatter_add, scatter_reduce, index_add/copy/fill/reduce, take, take_along_dim, put.
// Every write goes through the one scatter kernel (kernels::scatter): the index_* ops scatter along dim with their
// vector index expanded over the slices.
#include "../core/autocast_policy.h"
#include "ember/scatter.h"

#include <cmath>
#include <limits>
#include <utility>

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/host.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/type_promotion.h"
#include "reduction_support.h"

namespace ember {

namespace {

using R = ScatterReduce;

const char* name_of(ScalarType t) { return legacy_name(t).data(); }

// torch's CPU kernels of this family exist for every dtype but the float8 ones.
void check_kernel_dtype(const Tensor& t, const char* kernel) {
  EMBER_CHECK(!is_float8(t.dtype()), NotImplementedError, "\"", kernel, "\" not implemented for '", name_of(t.dtype()), "'");
}

// t viewed with one dim when it has none (torch's ensure_nonempty_dim / size).
Tensor nonempty(const Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }
int64_t nonempty_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[size_t(wrap_dim(d, t.dim()))]; }

R reduce_op(std::string_view reduce, bool new_options) {
  if (!new_options) {
    if (reduce == "add") return R::Sum;
    if (reduce == "multiply") return R::Prod;
    throw Error("reduce argument must be either add or multiply.");
  }
  if (reduce == "sum") return R::Sum;
  if (reduce == "prod") return R::Prod;
  if (reduce == "mean") return R::Mean;
  if (reduce == "amax" || reduce == "max") return R::Max;
  if (reduce == "amin" || reduce == "min") return R::Min;
  throw Error(str("reduce argument must be either sum, prod, mean, amax or amin, got ", reduce));
}

// Where include_self=False makes a reduction start (torch's *_exclude_input_init values).
Scalar reduce_init(R op, ScalarType t) {
  switch (op) {
    case R::Prod: return 1;
    case R::Max: return extremum_identity(true, t);
    case R::Min: return extremum_identity(false, t);
    default: return 0;
  }
}

// Checks shared by every writing op: the target must not overlap itself or the tensors it reads.
void check_writable(const Tensor& target, std::initializer_list<const Tensor*> reads) {
  check_no_internal_overlap(target);
  for (const Tensor* t : reads) {
    Overlap o = overlap(target, *t);
    EMBER_CHECK(o == Overlap::None || o == Overlap::TooHard, Error, "unsupported operation: some elements of the input "
                "tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation.");
  }
}

// torch's scatter_gather_dtype_check and scatter_shape_check (src: none for a value); returns dim wrapped.
int64_t check_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  int64_t d = wrap_dim(dim, self.dim());
  if (index.numel() != 0) {
    EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, Error, "scatter(): Expected dtype int32/int64 for index");
  }
  EMBER_CHECK(!src || src->dtype() == self.dtype(), Error, "scatter(): Expected self.dtype to be equal to src.dtype");
  if (index.numel() == 0) return d;
  int64_t rank = std::max<int64_t>(self.dim(), 1);
  EMBER_CHECK(rank == std::max<int64_t>(index.dim(), 1), Error,
              "Index tensor must have the same number of dimensions as self tensor");
  bool wrong = false;
  for (int64_t k = 0; k < rank && !wrong; ++k) wrong = k != d && nonempty_size(index, k) > nonempty_size(self, k);
  for (int64_t k = 0; k < rank && !wrong && src; ++k) wrong = nonempty_size(index, k) > nonempty_size(*src, k);
  EMBER_CHECK(!wrong, Error, "Expected index ", int_list(index.sizes()), " to be no larger than self ", int_list(self.sizes()),
              " apart from dimension ", d, src ? str(" and to be no larger size than src ", int_list(src->sizes())) : "");
  EMBER_CHECK(!src || std::max<int64_t>(src->dim(), 1) == rank, Error,
              "Index tensor must have the same number of dimensions as src tensor");
  return d;
}

// The kernel call: src (self's dtype, at least index's shape; a value expanded) into target along dim d.
void scatter_kernel(const Tensor& target, int64_t d, const Tensor& index, const Tensor& src, R op) {
  if (index.numel() == 0) return;
  std::optional<int64_t> bad = kernels::scatter[target.device()](nonempty(target), d, nonempty(index.to(kInt64)),
                                                                 nonempty(src), op);
  EMBER_CHECK(!bad, Error, "index ", *bad, " is out of bounds for dimension ", d, " with size ", nonempty_size(target, d));
}

// torch's scatter reductions of float16/bfloat16 accumulate in float and round once at the end (opmath).
void scatter_kernel_wide(const Tensor& target, int64_t d, const Tensor& index, const Tensor& src, R op) {
  if (op == R::None || (target.dtype() != kFloat16 && target.dtype() != kBFloat16)) {
    return scatter_kernel(target, d, index, src, op);
  }
  Tensor wide = target.to(kFloat32);
  scatter_kernel(wide, d, index, src.to(kFloat32), op);
  Tensor(target).copy_(wide);
}

// Counts of the elements reduced into each position of target for mean (torch's: in target's dtype, 1 for self
// when included), then target /= counts (floor division for integers).
void divide_by_counts(const Tensor& target, const Tensor& counts) {
  Tensor c = where(eq(counts, wrapped_scalar(0)), scalar_tensor(1, counts.options()), counts);
  Tensor t = target;
  div_out(t, target, c, target.is_floating_point() ? std::nullopt : std::optional<std::string_view>("floor"));
}

// scatter / scatter_add / scatter_reduce into `target` in place (src, or a value when src is null). reduce: empty
// (assign), scatter's old names (add, multiply) or scatter_reduce's (new_names), read after the shape checks as torch.
void scatter_into(const Tensor& target, int64_t dim, const Tensor& index, const Tensor* src, const Scalar& value,
                  std::string_view reduce = {}, bool new_names = false, bool include_self = true) {
  int64_t d = check_scatter(target, dim, index, src);
  R op = reduce.empty() ? R::None : reduce_op(reduce, new_names);
  check_kernel_dtype(target, src ? "scatter_gather_tensor_cpu" : "scatter_gather_scalar_cpu");
  if (index.numel() == 0) {  // torch still divides a mean by its counts
    EMBER_CHECK(!(op == R::Mean && target.dtype() == kBool), NotImplementedError, "\"div_floor_cpu\" not implemented for 'Bool'");
    return;
  }
  check_writable(target, {&index});
  if (src) check_writable(target, {src});
  Tensor s = src ? *src : scalar_tensor(value, target.options()).expand(index.sizes());
  if (!include_self) {
    Tensor init = scalar_tensor(reduce_init(op, target.dtype()), target.options()).expand(index.sizes());
    scatter_kernel(target, d, index, init, R::None);
  }
  EMBER_CHECK(!(op == R::Mean && target.dtype() == kBool), NotImplementedError,
              "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
  scatter_kernel_wide(target, d, index, s, op);
  if (op == R::Mean) {
    Tensor counts = include_self ? ones_like(target) : zeros_like(target);
    scatter_kernel(counts, d, index, ones_like(s), R::Sum);
    divide_by_counts(target, counts);
  }
}

// A fresh contiguous copy of self (the scatter family's result layout).
Tensor fresh_copy(const Tensor& self) {
  Tensor r = empty(self.sizes(), self.options());
  r.copy_(self);
  return r;
}

// The in-place form: autograd records it as the out-of-place op plus a copy; else the op writes self directly.
template <typename OutOfPlace, typename Direct>
Tensor& in_place(Tensor& self, const Tensor& other, OutOfPlace out_of_place, Direct direct) {
  autograd::check_in_place(self);
  if (autograd::needs_grad({&self, &other}) || autograd::writes_into_graph_view(self)) {
    check_no_internal_overlap(self);
    return autograd::record_in_place(self, out_of_place);
  }
  direct();
  self.bump_version();
  return self;
}

// The out= form: the result of compute() written into out, which must have self's dtype (checked first, as torch's
// meta functions do; resized as torch's out=).
template <typename Compute>
Tensor& out_form(Tensor& out, const Tensor& self, const Tensor& other, const char* name, Compute compute) {
  if (autograd::needs_grad({&self, &other, &out})) return autograd::record_out(out, self, name, compute);
  EMBER_CHECK(out.dtype() == self.dtype(), Error, "Expected out tensor to have dtype ", dtype_info(self.dtype()).cpp_name,
              ", but got ", dtype_info(out.dtype()).cpp_name, " instead");
  Tensor r = compute();
  resize_output(out, r.sizes());
  return out.copy_(r);
}

// Deprecated scatter(..., reduce=): warned once per process, as torch.
void warn_scatter_reduce() {
  static bool warned = false;
  if (std::exchange(warned, true)) return;
  warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future PyTorch "
       "release. Use torch.scatter_reduce instead for more reduction options.");
}

template <typename Body>
Tensor scattered_copy(const Tensor& self, Body body) {
  return autograd::untracked([&] {
    Tensor r = fresh_copy(self);
    body(r);
    return r;
  });
}

}  // namespace

// ---- scatter, scatter_add, scatter_reduce

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor r = scattered_copy(self, [&](Tensor& t) { scatter_into(t, dim, index, &src, 0); });
  if (autograd::needs_grad({&self, &src})) autograd::record_scatter(r, self, wrap_dim(dim, self.dim()), index, &src);
  return r;
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor r = scattered_copy(self, [&](Tensor& t) { scatter_into(t, dim, index, nullptr, value); });
  if (autograd::needs_grad({&self})) autograd::record_scatter(r, self, wrap_dim(dim, self.dim()), index, nullptr);
  return r;
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  warn_scatter_reduce();
  Tensor r = scattered_copy(self, [&](Tensor& t) {
    scatter_into(t, dim, index, &src, 0, reduce);
  });
  if (autograd::needs_grad({&self, &src})) autograd::record_not_implemented("scatter", r, self, src);
  return r;
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  Tensor r = scattered_copy(self, [&](Tensor& t) {
    scatter_into(t, dim, index, nullptr, value, reduce);
  });
  if (autograd::needs_grad({&self})) autograd::record_not_implemented("scatter", r, self, Tensor());
  return r;
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return in_place(self, src, [&] { return scatter(self, dim, index, src); },
                  [&] { scatter_into(self, dim, index, &src, 0); });
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return in_place(self, Tensor(), [&] { return scatter(self, dim, index, value); },
                  [&] { scatter_into(self, dim, index, nullptr, value); });
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return in_place(self, src, [&] { return scatter(self, dim, index, src, reduce); }, [&] {
    warn_scatter_reduce();
    scatter_into(self, dim, index, &src, 0, reduce);
  });
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  return in_place(self, Tensor(), [&] { return scatter(self, dim, index, value, reduce); },
                  [&] { scatter_into(self, dim, index, nullptr, value, reduce); });
}
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return out_form(out, self, src, "scatter", [&] { return scatter(self, dim, index, src); });
}
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return out_form(out, self, Tensor(), "scatter", [&] { return scatter(self, dim, index, value); });
}
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    std::string_view reduce) {
  return out_form(out, self, src, "scatter", [&] { return scatter(self, dim, index, src, reduce); });
}
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                    std::string_view reduce) {
  return out_form(out, self, Tensor(), "scatter", [&] { return scatter(self, dim, index, value, reduce); });
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  EMBER_AUTOCAST(promote, kCUDA, scatter_add, self, dim, index, src);
  Tensor r = scattered_copy(self, [&](Tensor& t) { scatter_into(t, dim, index, &src, 0, "sum", true); });
  if (autograd::needs_grad({&self, &src})) autograd::record_scatter_add(r, self, wrap_dim(dim, self.dim()), index, src);
  return r;
}
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return in_place(self, src, [&] { return scatter_add(self, dim, index, src); },
                  [&] { scatter_into(self, dim, index, &src, 0, "sum", true); });
}
Tensor& scatter_add_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return out_form(out, self, src, "scatter_add", [&] { return scatter_add(self, dim, index, src); });
}

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self) {
  Tensor r = scattered_copy(self, [&](Tensor& t) {
    scatter_into(t, dim, index, &src, 0, reduce, true, include_self);
  });
  if (autograd::needs_grad({&self, &src})) {
    autograd::record_scatter_reduce(r, self, wrap_dim(dim, self.dim()), index, src, reduce, include_self);
  }
  return r;
}
Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                        bool include_self) {
  return in_place(self, src, [&] { return scatter_reduce(self, dim, index, src, reduce, include_self); }, [&] {
    scatter_into(self, dim, index, &src, 0, reduce, true, include_self);
  });
}
Tensor& scatter_reduce_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, bool include_self) {
  return out_form(out, self, src, "scatter_reduce",
                  [&] { return scatter_reduce(self, dim, index, src, reduce, include_self); });
}

// ---- index_add, index_copy, index_fill, index_reduce

namespace {

// index as int64 positions in [0, size) (negatives wrapped when `wrap`), read on the host; the first index outside
// raises through fail(value).
template <typename Fail>
Tensor checked_positions(const Tensor& index, int64_t size, bool wrap, Fail fail) {
  Tensor c = host_copy(index).to(kInt64).contiguous();
  Tensor out = empty({c.numel()}, c.options());
  const int64_t* in = c.data_ptr<int64_t>();
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < c.numel(); ++i) {
    int64_t v = in[i] < 0 && wrap ? in[i] + size : in[i];
    if (v < 0 || v >= size) fail(in[i]);
    o[i] = v;
  }
  return out.to(index.device());
}

// torch's index_func_meta_impl (index_add, index_reduce): returns dim wrapped.
int64_t check_index_func(const char* func, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK(index.dim() <= 1, IndexError, func, "_(): Index is supposed to be a vector, but got dim: ", index.dim(),
              " with type: ", name_of(index.dtype()), " and size: ", int_list(index.sizes()));
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, Error, func,
              "_(): Expected dtype int32/int64 for index but got: ", name_of(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), Error, func, "_(): self (", name_of(self.dtype()), ") and source (",
              name_of(source.dtype()), ") must have the same scalar type");
  EMBER_CHECK(d == 0 || d < source.dim(), Error, func, "_(): Indexing dim ", d,
              " is out of bounds of the source tensor with dim ", source.dim());
  EMBER_CHECK(source.dim() > 0 || index.numel() == 1, IndexError, "Dimension specified as 0 but tensor has no dimensions");
  EMBER_CHECK(index.numel() == nonempty_size(source, d), Error, func, "_(): Number of indices (", index.numel(),
              ") should be equal to source.size(dim): (", nonempty_size(source, d), "), for dim: ", d);
  DimVector a(self.sizes()), b(source.sizes());
  if (self.dim() > 0 && source.dim() > 0) {
    a.erase(size_t(d));
    b.erase(size_t(d));
  }
  EMBER_CHECK(std::equal(a.begin(), a.end(), b.begin(), b.end()), Error, "source tensor shape must match self tensor "
              "shape, excluding the specified dimension. Got self.shape = ", int_list(self.sizes()), " source.shape = ",
              int_list(source.sizes()));
  return d;
}

// source.select(d, i) combined into target.select(d, positions[i]): the positions (in range) expanded over the slices.
// wide: accumulate float16/bfloat16 in float, as torch's scatter route does.
void scatter_slices(const Tensor& target, int64_t d, const Tensor& positions, const Tensor& source, R op,
                    bool wide = false) {
  Tensor src = nonempty(source);
  DimVector strides(size_t(src.dim()), 0);
  strides[size_t(d)] = 1;
  (wide ? scatter_kernel_wide : scatter_kernel)(target, d, positions.as_strided(src.sizes(), strides), src, op);
}

// The slice shape of an index_fill: target's with n entries along d.
Tensor fill_source(const Tensor& target, int64_t d, int64_t n, const Scalar& value) {
  DimVector shape(nonempty(target).sizes());
  shape[size_t(d)] = n;
  return scalar_tensor(value, target.options()).expand(shape);
}

void index_add_into(const Tensor& target, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  int64_t d = check_index_func("index_add", target, dim, index, source);
  check_kernel_dtype(target, "scatter_gather_tensor_cpu");
  if (target.dim() > 1 && (index.numel() == 0 || target.numel() == 0)) return;
  check_writable(target, {&index, &source});
  // torch's scatter_add route (dim first or last, alpha 1, int64 index) reports bounds as scatter does
  bool scatter_route = target.dim() > 1 && (d == 0 || d == target.dim() - 1) && alpha.to_double() == 1 &&
                       index.dtype() == kInt64;
  int64_t size = nonempty_size(target, d);
  Tensor positions = checked_positions(index, size, false, [&](int64_t v) {
    EMBER_CHECK(!scatter_route, Error, "index ", v, " is out of bounds for dimension ", d, " with size ", size);
    throw IndexError("index out of range in self");
  });
  Tensor src = source;
  if (alpha.to_double() != 1) {  // source * alpha in the element type, as torch
    src = mul(source, scalar_tensor(alpha, source.options()));
  }
  scatter_slices(target, d, positions, src, R::Sum, scatter_route);
}

void index_copy_into(const Tensor& target, int64_t dim, const Tensor& index, const Tensor& source) {
  int64_t d = wrap_dim(dim, target.dim());
  EMBER_CHECK(index.dim() < 2, IndexError, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(), ")");
  EMBER_CHECK(source.dim() > 0 || index.numel() == 1, IndexError,
              "index_copy_(): When source is scalar, index should have one element (got ", index.numel(), ")");
  EMBER_CHECK(source.dim() == target.dim() || source.dim() == 0 || target.dim() == 0, IndexError, "index_copy_(): When "
              "source and destination are not scalars, their dimensionality must match. Source dimensionality (",
              source.dim(), "), destination dimensionality (", target.dim(), ")");
  EMBER_CHECK(index.dtype() == kInt64, Error, "index_copy_(): Expected a long tensor for index, but got ",
              name_of(index.dtype()));
  EMBER_CHECK(target.dtype() == source.dtype(), Error, "index_copy_(): self and source expected to have the same dtype, "
              "but got (self) ", name_of(target.dtype()), " and (source) ", name_of(source.dtype()));
  DimVector a(target.sizes()), b(source.sizes());
  if (!a.empty()) a.erase(size_t(d));
  if (!b.empty()) b.erase(size_t(d));
  auto joined = [](const DimVector& v) {
    std::string s;
    for (size_t k = 0; k < v.size(); ++k) s += str(k ? " " : "", v[k]);
    return s;
  };
  EMBER_CHECK(std::equal(a.begin(), a.end(), b.begin(), b.end()), Error, "index_copy_(): Source/destination tensor must "
              "have same slice shapes. Destination slice shape: ", joined(a), " at dimension ", d,
              " and source slice shape: ", joined(b), " at dimension 0.");
  EMBER_CHECK(source.dim() == 0 || index.numel() == source.sizes()[size_t(d)], IndexError, "index_copy_(): Number of "
              "indices (", index.numel(), ") should be equal to source.size(dim) (", nonempty_size(source, d), ")");
  check_kernel_dtype(target, "index_copy_cpu");
  check_writable(target, {&index, &source});
  int64_t size = nonempty_size(target, d);
  Tensor positions = checked_positions(index, size, false, [&](int64_t v) {
    throw IndexError(str("index_copy_(): index ", v, " is out of bounds for dimension ", d, " with size ", size));
  });
  if (positions.numel() > 0) scatter_slices(target, d, positions, source, R::None);
}

// Returns the positions written (wrapped), for the gradient.
Tensor index_fill_into(const Tensor& target, int64_t dim, const Tensor& index, const Scalar& value) {
  EMBER_CHECK(index.dtype() == kInt64, IndexError, "index_fill_(): Expected dtype int64 for index.");
  check_writable(target, {&index});
  int64_t d = wrap_dim(dim, std::max<int64_t>(target.dim(), 1));
  EMBER_CHECK(index.dim() <= 1, Error, "Index has to be a vector/scalar");
  check_kernel_dtype(target, "index_fill_cpu");
  int64_t size = nonempty_size(target, d);
  if (target.numel() == 0) {  // torch checks no index into an empty tensor, unless the filled dim has size 0
    bool others_empty = false;
    for (int64_t k = 0; k < target.dim(); ++k) others_empty = others_empty || (k != d && target.size(k) == 0);
    if (size == 0 && index.numel() > 0 && !others_empty) {
      // torch first views the storage with that dim of size 1 and stride 0: RuntimeError where the storage is too
      // small for the view, else the kernel's IndexError
      int64_t first = index.reshape({-1}).select(0, 0).item().to_int(), needed = target.storage_offset() + 1;
      for (int64_t k = 0; k < target.dim(); ++k) {
        if (k != d) needed += (target.size(k) - 1) * target.stride(k);
      }
      std::string message = str("index ", first, " is out of bounds for dimension ", d, " with size 0");
      if (needed * int64_t(target.element_size()) > int64_t(target.storage().nbytes())) {
        throw Error(str("index_fill_(): ", message, " (the storage is too small for its view)"));
      }
      throw IndexError(message);
    }
    return empty({0}, index.options());
  }
  Tensor positions = checked_positions(index, size, true, [&](int64_t v) {
    throw IndexError(str("index ", v, " is out of bounds for dimension ", d, " with size ", size));
  });
  Tensor src = fill_source(target, d, positions.numel(), value);  // checks the value fits, as torch
  if (positions.numel() > 0) scatter_slices(target, d, positions, src, R::None);
  return positions;
}

void index_reduce_into(const Tensor& target, int64_t dim, const Tensor& index, const Tensor& source,
                       std::string_view reduce, bool include_self) {
  static bool warned = false;
  if (!std::exchange(warned, true)) warn("index_reduce() is in beta and the API may change at any time.");
  int64_t d = check_index_func("index_reduce", target, dim, index, source);
  EMBER_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin", Error,
              "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", reduce, ".");
  R op = reduce_op(reduce, true);
  check_kernel_dtype(target, "index_reduce_func_exclude_input_init");
  // torch's bool support: not in the include_self=False fill, nor in the loop over a vector, nor in mean's division
  bool boolean = target.dtype() == kBool;
  EMBER_CHECK(!boolean || include_self, NotImplementedError,
              "\"index_reduce_func_exclude_input_init\" not implemented for 'Bool'");
  EMBER_CHECK(!boolean || target.dim() > 1, NotImplementedError, "\"index_func_\" not implemented for 'Bool'");
  check_writable(target, {&index, &source});
  int64_t size = nonempty_size(target, d);
  Tensor positions = checked_positions(index, size, false, [&](int64_t) { throw IndexError("index out of range in self"); });
  if (!include_self && positions.numel() > 0) {  // torch's init, with index_fill_
    scatter_slices(target, d, positions, fill_source(target, d, positions.numel(), reduce_init(op, target.dtype())),
                   R::None);
  }
  if (positions.numel() == 0) return;
  scatter_slices(target, d, positions, source, op);
  if (op == R::Mean) {
    EMBER_CHECK(!boolean, NotImplementedError, "\"div_floor_cpu\" not implemented for 'Bool'");
    Tensor counts = include_self ? ones_like(target) : zeros_like(target);
    scatter_slices(counts, d, positions, ones_like(source), R::Sum);
    divide_by_counts(target, counts);
  }
}

}  // namespace

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  Tensor r = scattered_copy(self, [&](Tensor& t) { index_add_into(t, dim, index, source, alpha); });
  if (autograd::needs_grad({&self, &source})) {
    autograd::record_index_add(r, self, wrap_dim(dim, self.dim()), index, source, alpha);
  }
  return r;
}
Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return in_place(self, source, [&] { return index_add(self, dim, index, source, alpha); },
                  [&] { index_add_into(self, dim, index, source, alpha); });
}
Tensor& index_add_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const Scalar& alpha) {
  return out_form(out, self, source, "index_add", [&] { return index_add(self, dim, index, source, alpha); });
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  EMBER_AUTOCAST(promote, kCPU, index_copy, self, dim, index, source);
  Tensor r = scattered_copy(self, [&](Tensor& t) { index_copy_into(t, dim, index, source); });
  if (autograd::needs_grad({&self, &source})) autograd::record_index_copy(r, self, wrap_dim(dim, self.dim()), index, source);
  return r;
}
Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return in_place(self, source, [&] { return index_copy(self, dim, index, source); },
                  [&] { index_copy_into(self, dim, index, source); });
}
Tensor& index_copy_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return out_form(out, self, source, "index_copy", [&] { return index_copy(self, dim, index, source); });
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor positions;
  Tensor r = autograd::untracked([&] {
    Tensor t = self.clone();  // torch's index_fill keeps self's layout
    positions = index_fill_into(t, dim, index, value);
    return t;
  });
  if (autograd::needs_grad({&self})) {
    autograd::record_index_fill(r, self, wrap_dim(dim, std::max<int64_t>(self.dim(), 1)), positions, nullptr);
  }
  return r;
}
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return in_place(self, Tensor(), [&] { return index_fill(self, dim, index, value); },
                  [&] { index_fill_into(self, dim, index, value); });
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, Error, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  Tensor positions;
  Tensor r = autograd::untracked([&] {
    Tensor t = self.clone();
    positions = index_fill_into(t, dim, index, value.item());
    return t;
  });
  if (autograd::needs_grad({&self, &value})) {
    autograd::record_index_fill(r, self, wrap_dim(dim, std::max<int64_t>(self.dim(), 1)), positions, &value);
  }
  return r;
}
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, Error, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return in_place(self, value, [&] { return index_fill(self, dim, index, value); },
                  [&] { index_fill_into(self, dim, index, value.item()); });
}

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                    bool include_self) {
  Tensor r = scattered_copy(self, [&](Tensor& t) { index_reduce_into(t, dim, index, source, reduce, include_self); });
  if (autograd::needs_grad({&self, &source})) {
    autograd::record_index_reduce(r, self, wrap_dim(dim, self.dim()), index, source, reduce, include_self);
  }
  return r;
}
Tensor& index_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                      bool include_self) {
  return in_place(self, source, [&] { return index_reduce(self, dim, index, source, reduce, include_self); },
                  [&] { index_reduce_into(self, dim, index, source, reduce, include_self); });
}
Tensor& index_reduce_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         std::string_view reduce, bool include_self) {
  return out_form(out, self, source, "index_reduce",
                  [&] { return index_reduce(self, dim, index, source, reduce, include_self); });
}

// ---- take, take_along_dim, put

namespace {

// Flat positions of index into a tensor of n elements (negatives from the end), with take/put's messages.
Tensor flat_positions(const Tensor& index, int64_t n) {
  return checked_positions(index, n, true, [&](int64_t v) {
    throw IndexError(str("out of range: tried to access index ", v, " on a tensor of ", n, " elements."));
  });
}

Tensor take_impl(const Tensor& self, const Tensor& index) {
  EMBER_CHECK(index.dtype() == kInt64, Error, "take(): Expected a long tensor for index, but got ", name_of(index.dtype()));
  EMBER_CHECK(self.numel() > 0 || index.numel() == 0, IndexError, "take(): tried to take from an empty tensor");
  check_kernel_dtype(self, "take_cpu");
  Tensor positions = flat_positions(index, self.numel());
  return ember::index(self.reshape({-1}), {positions}).view(index.sizes());
}

void put_into(const Tensor& target, const Tensor& index, const Tensor& source, bool accumulate) {
  EMBER_CHECK(index.dtype() == kInt64, Error, "put_(): Expected a long tensor for index, but got ", name_of(index.dtype()));
  EMBER_CHECK(source.dtype() == target.dtype(), Error, "put_(): self and source expected to have the same dtype, but got "
              "self.dtype = ", name_of(target.dtype()), " and source.dtype = ", name_of(source.dtype()));
  EMBER_CHECK(source.numel() == index.numel(), IndexError, "put_(): Expected source and index to have the same number "
              "of elements, but got source.numel() = ", source.numel(), ", index.numel() = ", index.numel());
  check_writable(target, {&index, &source});
  if (index.numel() == 0) return;
  EMBER_CHECK(target.numel() > 0, IndexError, "put_(): Tried to put elements into an empty tensor");
  check_kernel_dtype(target, "take_put_cpu");
  Tensor positions = flat_positions(index, target.numel());
  Tensor flat = target.contiguous().view({-1});  // a copy, written back, for other layouts
  scatter_kernel(flat, 0, positions, source.reshape({-1}), accumulate ? R::Sum : R::None);
  if (!target.is_contiguous()) Tensor(target).copy_(flat.view(target.sizes()));
}

}  // namespace

Tensor take(const Tensor& self, const Tensor& index) {
  Tensor r = autograd::untracked([&] { return take_impl(self, index); });
  if (autograd::needs_grad({&self})) autograd::record_take(r, self, index);
  return r;
}
Tensor& take_out(Tensor& out, const Tensor& self, const Tensor& index) {
  EMBER_CHECK(!autograd::needs_grad({&self, &out}), Error, "take(): functions with out=... arguments don't support "
              "automatic differentiation, but one of the arguments requires grad.");
  EMBER_CHECK(out.dtype() == self.dtype(), Error, "take(): self and out expected to have the same dtype, but got "
              "self.dtype = ", name_of(self.dtype()), " and out.dtype = ", name_of(out.dtype()));
  Tensor r = take_impl(self, index);
  resize_output(out, r.sizes());
  return out.copy_(r);
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.dtype() == kInt64, Error, "torch.take_along_dim(): dtype of indices should be Long but got ",
              name_of(indices.dtype()));
  if (!dim) return gather(self.view({-1}), 0, indices.view({-1}));
  int64_t d = wrap_dim(*dim, self.dim());
  EMBER_CHECK(self.dim() == indices.dim(), Error, "torch.take_along_dim(): input and indices should have the same number "
              "of dimensions, but got ", self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  EMBER_CHECK(self.dim() > 0, IndexError, "Dimension specified as ", *dim, " but tensor has no dimensions");
  DimVector self_sizes(self.sizes()), index_sizes(indices.sizes());
  self_sizes[size_t(d)] = indices.sizes()[size_t(d)];
  index_sizes[size_t(d)] = self.sizes()[size_t(d)];
  Tensor picks = indices.expand(broadcast_shapes(self_sizes, indices.sizes()));
  return gather(self.expand(broadcast_shapes(index_sizes, self.sizes())), d, picks);
}
Tensor& take_along_dim_out(Tensor& out, const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  return out_form(out, self, Tensor(), "take_along_dim", [&] { return take_along_dim(self, indices, dim); });
}

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  Tensor r = autograd::untracked([&] {
    Tensor t = self.clone();
    put_into(t, index, source, accumulate);
    return t;
  });
  if (autograd::needs_grad({&self, &source})) autograd::record_put(r, self, index, source, accumulate);
  return r;
}
Tensor& put_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  return in_place(self, source, [&] { return put(self, index, source, accumulate); },
                  [&] { put_into(self, index, source, accumulate); });
}

}  // namespace ember

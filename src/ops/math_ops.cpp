// Math ops built from the basic ones: logit, signbit, nansum, nanmean, logcumsumexp, diff, cross, kron, tensordot.
#include "../core/autocast_policy.h"
#include "ember/math_ops.h"

#include <array>
#include <utility>
#include <cmath>

#include "../autograd/formulas.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "reduction_support.h"

namespace ember {

namespace {

Tensor logit_impl(const Tensor& x, std::optional<double> eps) {
  ScalarType dtype = x.is_floating_point() ? x.dtype() : default_dtype();
  Tensor v = x.to(opmath_dtype(dtype));
  if (eps && *eps >= 0) {  // the bounds in the input's dtype, as torch's kernel
    Tensor lo = scalar_tensor(*eps, x.options().dtype(dtype)), hi = sub(ones_like(lo), lo);
    v = clamp(v, lo.to(v.dtype()), hi.to(v.dtype()));
  }
  return log(div(v, rsub(v, wrapped_scalar(1)))).to(dtype);
}

// logaddexp of two tensors: max + log1p(exp(min - max)); equal infinities give themselves.
Tensor log_add_exp(const Tensor& a, const Tensor& b) {
  Tensor hi = maximum(a, b), lo = minimum(a, b);
  Tensor r = add(hi, log1p(exp(sub(lo, hi))));
  return where(logical_and(eq(lo, hi), isinf(hi)), hi, r);
}

Tensor nansum_impl(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  Tensor input = dtype ? x.to(*dtype) : x;
  if (input.numel() > 0) check_not_float8(input, "nansum_cpu");
  if (input.is_floating_point()) input = where(isnan(input), wrapped_scalar(0).to(input.dtype()), input);
  return sum(input, dims, keepdim);
}

void check_diff(const Tensor& x, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                const std::optional<Tensor>& append) {
  EMBER_CHECK(x.dim() >= 1, Error, "diff expects input to be at least one-dimensional");
  EMBER_CHECK(n >= 0, Error, "order must be non-negative but got ", n);
  int64_t d = wrap_dim(dim, x.dim());
  for (const auto* other : {&prepend, &append}) {
    if (!*other) continue;
    EMBER_CHECK((*other)->dim() == x.dim(), Error, "diff expects prepend or append to be the same dimension as input");
    for (int64_t i = 0; i < x.dim(); ++i) {
      EMBER_CHECK(i == d || (*other)->sizes()[size_t(i)] == x.sizes()[size_t(i)], Error,
                  "diff expects the shape of tensor to prepend or append to match that of input except along the "
                  "differencing dimension; input.size(", i, ") = ", x.sizes()[size_t(i)], ", but got tensor.size(", i,
                  ") = ", (*other)->sizes()[size_t(i)]);
    }
  }
}

}  // namespace

Tensor& composite_out(Tensor& out, std::initializer_list<const Tensor*> inputs, const char* name,
                      const std::function<Tensor()>& compute) {
  bool grad = autograd::needs_grad({&out});
  for (const Tensor* t : inputs) grad = grad || autograd::needs_grad({t});
  EMBER_CHECK(!grad, Error, name, "(): functions with out=... arguments don't support automatic "
              "differentiation, but one of the arguments requires grad.");
  Tensor r = compute();
  check_result_fits_output(r.dtype(), out.dtype());
  resize_output_like(out, r);
  return out.copy_(r);
}

void check_out_dtype(const Tensor& out, ScalarType expected) {
  EMBER_CHECK(out.dtype() == expected, Error, "Expected out tensor to have dtype ", dtype_info(expected).cpp_name,
              ", but got ", dtype_info(out.dtype()).cpp_name, " instead");
}

Tensor logit(const Tensor& x, std::optional<double> eps) {
  Tensor r = autograd::untracked([&] { return logit_impl(x, eps); });
  if (autograd::needs_grad({&x})) autograd::record_logit(r, x, eps);
  return r;
}

Tensor& logit_(Tensor& x, std::optional<double> eps) {
  auto compute = [&] {
    Tensor r = logit(x, eps);
    check_result_fits_output(r.dtype(), x.dtype());
    return r;
  };
  if (autograd::needs_grad({&x}) || autograd::writes_into_graph_view(x)) return autograd::record_in_place(x, compute);
  autograd::check_in_place(x);
  return x.copy_(compute());
}

Tensor& logit_out(Tensor& out, const Tensor& x, std::optional<double> eps) {
  return composite_out(out, {&x}, "logit", [&] { return logit(x, eps); });
}

Tensor signbit(const Tensor& x) {
  return autograd::untracked([&] {  // the sign of 1 copied from x keeps -0.0 and -nan negative
    Tensor zero = wrapped_scalar(0);
    return x.is_floating_point() ? lt(copysign(wrapped_scalar(1).to(x.dtype()), x), zero) : lt(x, zero);
  });
}

Tensor& signbit_out(Tensor& out, const Tensor& x) {
  EMBER_CHECK(out.dtype() == kBool, Error, "signbit does not support non-boolean outputs.");
  return composite_out(out, {}, "signbit", [&] { return signbit(x); });
}

Tensor nansum(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  Tensor r = autograd::untracked([&] { return nansum_impl(x, dims, keepdim, dtype); });
  if (autograd::needs_grad({&x})) autograd::record_nansum(r, x, dims, keepdim);
  return r;
}

// torch's out= forms compute in out's dtype (unless dtype= says otherwise).
Tensor& nansum_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  ScalarType d = dtype.value_or(out.dtype());
  EMBER_CHECK(!x.is_floating_point() || is_floating_point(d), NotImplementedError, "\"nansum_cpu\" not implemented for '",
              legacy_name(d), "'");
  return composite_out(out, {&x}, "nansum", [&] {  // an integer sum into bool is torch's or
    return d == kBool && !x.is_floating_point() ? any(x, dims.empty() ? OptionalIntArrayRef() : dims, keepdim).to(kBool)
                                                 : nansum(x, dims, keepdim, d);
  });
}

// torch's composite: nansum / the count of non-NaN elements (DivBackward0).
Tensor nanmean(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(x.is_floating_point(), Error, "nanmean(): expected input to have floating point or complex dtype but got ",
              legacy_name(x.dtype()));
  Tensor count = autograd::untracked([&] { return sum(logical_not(isnan(x)), dims, keepdim); });
  return div(nansum(x, dims, keepdim, dtype), count);
}

Tensor& nanmean_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(x.is_floating_point(), Error, "nanmean(): integral types and 'Bool' are not supported for nanmean, even "
              "for empty tensors.");
  nansum_out(out, x, dims, keepdim, dtype);
  return out.div_(autograd::untracked([&] { return sum(logical_not(isnan(x)), dims, keepdim); }));
}

// A running logaddexp over the slices along dim.
Tensor logcumsumexp(const Tensor& x, int64_t dim) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(x.dim(), 1));
  EMBER_CHECK(x.is_floating_point(), NotImplementedError, "\"logcumsumexp_out_cpu\" not implemented for '",
              legacy_name(x.dtype()), "'");
  Tensor r = autograd::untracked([&] {
    Tensor out = empty(x.sizes(), x.options());
    if (x.dim() == 0) return out.copy_(x);
    Tensor acc;
    for (int64_t i = 0; i < x.sizes()[size_t(d)]; ++i) {
      Tensor slice = x.select(d, i).to(opmath_dtype(x.dtype()));
      acc = i == 0 ? slice : log_add_exp(acc, slice);
      out.select(d, i).copy_(acc);
    }
    return out;
  });
  if (autograd::needs_grad({&x})) autograd::record_logcumsumexp(r, x, d);
  return r;
}

Tensor& logcumsumexp_out(Tensor& out, const Tensor& x, int64_t dim) {
  EMBER_CHECK(out.dtype() == x.dtype(), Error, "expected scalar_type ", legacy_name(x.dtype()), " but found ",
              legacy_name(out.dtype()));
  return composite_out(out, {&x}, "logcumsumexp", [&] { return logcumsumexp(x, dim); });
}

// torch's composite: narrow(1) - narrow(0) n times (SubBackward0), after concatenating prepend and append.
Tensor diff(const Tensor& x, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  check_diff(x, n, dim, prepend, append);
  int64_t d = wrap_dim(dim, x.dim());
  Tensor r = x;
  if (n > 0 && (prepend || append)) {
    std::vector<Tensor> parts;
    if (prepend) parts.push_back(*prepend);
    parts.push_back(x);
    if (append) parts.push_back(*append);
    r = cat(parts, d);
  }
  if (n == 0) return zeros_like(r).copy_(r);  // a copy, as torch
  int64_t len = r.sizes()[size_t(d)] - 1, steps = std::min(n, r.sizes()[size_t(d)]);
  for (int64_t i = 0; i < steps; ++i, --len) {
    Tensor hi = r.narrow(d, 1, len), lo = r.narrow(d, 0, len);
    r = r.dtype() == kBool ? logical_xor(hi, lo) : sub(hi, lo);
  }
  return r;
}

Tensor& diff_out(Tensor& out, const Tensor& x, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                 const std::optional<Tensor>& append) {
  return composite_out(out, {&x}, "diff", [&] { return diff(x, n, dim, prepend, append); });
}

Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim) {
  EMBER_CHECK(a.dim() == b.dim(), Error, "linalg.cross: inputs must have the same number of dimensions.");
  int64_t d = wrap_dim(dim, a.dim());
  EMBER_CHECK(a.sizes()[size_t(d)] == 3 && b.sizes()[size_t(d)] == 3, Error, "linalg.cross: inputs dimension ", dim,
              " must have length 3. Got ", a.sizes()[size_t(d)], " and ", b.sizes()[size_t(d)]);
  EMBER_CHECK(a.dtype() == b.dtype(), Error, "expected scalar type ", legacy_name(a.dtype()), " but found ",
              legacy_name(b.dtype()));
  EMBER_CHECK(a.dtype() != kBool, NotImplementedError, "\"linalg_cross\" not implemented for 'Bool'");
  DimVector shape = broadcast_shapes(a.sizes(), b.sizes());
  Tensor r = autograd::untracked([&] {
    Tensor x = a.expand(shape), y = b.expand(shape);
    auto part = [&](int64_t i, int64_t j) { return sub(mul(x.select(d, i), y.select(d, j)), mul(x.select(d, j), y.select(d, i))); };
    const std::array<Tensor, 3> parts = {part(1, 2), part(2, 0), part(0, 1)};
    return stack(parts, d);
  });
  if (autograd::needs_grad({&a, &b})) autograd::record_cross(r, a, b, d);
  return r;
}

Tensor& linalg_cross_out(Tensor& out, const Tensor& a, const Tensor& b, int64_t dim) {
  check_out_dtype(out, a.dtype());
  return composite_out(out, {&a, &b}, "linalg_cross", [&] { return linalg_cross(a, b, dim); });
}

Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  EMBER_AUTOCAST(promote, kCUDA, cross, a, b, dim);
  if (!dim) {
    static bool warned = false;  // torch warns once per process
    if (!std::exchange(warned, true)) {
      warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
           "or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of "
           "linalg.cross in a future release.");
    }
    for (int64_t i = 0; i < a.dim() && !dim; ++i) {
      if (a.sizes()[size_t(i)] == 3) dim = i;
    }
    EMBER_CHECK(dim, Error, "no dimension of size 3 in input");
  }
  return linalg_cross(a, b, *dim);
}

Tensor& cross_out(Tensor& out, const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  check_out_dtype(out, a.dtype());
  return composite_out(out, {&a, &b}, "cross", [&] { return cross(a, b, dim); });
}

// a (.., n, 1, m, 1) * b (.., 1, p, 1, q), and the shape (.., n p, m q) it is viewed as.
std::pair<Tensor, DimVector> kron_product(const Tensor& a, const Tensor& b) {
  int64_t ndim = std::max(a.dim(), b.dim());
  DimVector a_shape, b_shape, shape;
  for (int64_t i = 0; i < ndim; ++i) {
    int64_t sa = i < ndim - a.dim() ? 1 : a.sizes()[size_t(i - (ndim - a.dim()))];
    int64_t sb = i < ndim - b.dim() ? 1 : b.sizes()[size_t(i - (ndim - b.dim()))];
    a_shape.push_back(sa), a_shape.push_back(1);
    b_shape.push_back(1), b_shape.push_back(sb);
    shape.push_back(sa * sb);
  }
  return {mul(a.reshape(a_shape), b.reshape(b_shape)), shape};
}

// torch's composite: the product viewed (UnsafeViewBackward0), which fails where the product's layout does not allow
// it, as in torch; out= copies it instead.
Tensor kron(const Tensor& a, const Tensor& b) {
  auto [product, shape] = kron_product(a, b);
  Tensor r = autograd::untracked([&] { return product.view(shape); });
  autograd::as_new_tensor(r);
  if (autograd::needs_grad({&product})) autograd::record_unsafe_view(r, product, product.sizes());
  return r;
}

Tensor& kron_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return composite_out(out, {&a, &b}, "kron", [&] {
    auto [product, shape] = kron_product(a, b);
    return product.reshape(shape);
  });
}

// torch's composite: both permuted and reshaped to matrices, one mm, reshaped back (ViewBackward0).
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  EMBER_AUTOCAST(promote, kCUDA, tensordot, a, b, dims_a, dims_b);
  // torch contracts all dims of both with a kernel its CPU list omits: no casts there
  if (autocast::active() && dims_a.size() == size_t(a.dim()) && dims_b.size() == size_t(b.dim())) [[unlikely]] {
    EMBER_AUTOCAST(keep, kCPU, tensordot, a, b, dims_a, dims_b);
  }
  EMBER_CHECK(dims_a.size() == dims_b.size(), Error, "both dimension lists should have same length");
  EMBER_CHECK(a.dtype() == b.dtype(), Error, "both inputs should have same dtype");
  Tensor x = a, y = b;
  int64_t common = 1;
  std::vector<bool> in_a(size_t(a.dim()), false), in_b(size_t(b.dim()), false);
  DimVector pa, pb, shape;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    int64_t da = wrap_dim(dims_a[i], a.dim()), db = wrap_dim(dims_b[i], b.dim());
    int64_t sa = a.sizes()[size_t(da)], sb = b.sizes()[size_t(db)];
    if (sb == 1) {  // a broadcast dim is summed at once
      x = sum(x, {da}, true);
    } else if (sa == 1) {
      y = sum(y, {db}, true);
    } else {
      EMBER_CHECK(sa == sb, Error, "contracted dimensions need to match, but first has size ", sa, " in dim ", dims_a[i],
                  " and second has size ", sb, " in dim ", dims_b[i]);
      common *= sa;
    }
    in_a[size_t(da)] = in_b[size_t(db)] = true;
  }
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < a.dim(); ++i) {
    if (in_a[size_t(i)]) continue;
    pa.push_back(i), shape.push_back(x.sizes()[size_t(i)]), rows *= x.sizes()[size_t(i)];
  }
  for (size_t i = 0; i < dims_a.size(); ++i) pa.push_back(wrap_dim(dims_a[i], a.dim())), pb.push_back(wrap_dim(dims_b[i], b.dim()));
  for (int64_t i = 0; i < b.dim(); ++i) {
    if (in_b[size_t(i)]) continue;
    pb.push_back(i), shape.push_back(y.sizes()[size_t(i)]), cols *= y.sizes()[size_t(i)];
  }
  return mm(x.permute(pa).reshape({rows, common}), y.permute(pb).reshape({common, cols})).reshape(shape);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  EMBER_CHECK(dims >= 0, Error, "tensordot expects dims >= 0, but got dims=", dims);
  EMBER_CHECK(dims <= std::min(a.dim(), b.dim()), Error, "tensordot expects dims < ndim_a or ndim_b, but got dims=", dims);
  DimVector da, db;
  for (int64_t i = 0; i < dims; ++i) da.push_back(i - dims), db.push_back(i);
  return tensordot(a, b, da, db);
}

Tensor& tensordot_out(Tensor& out, const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  Tensor r = tensordot(a, b, dims_a, dims_b);  // first, as torch: a dtype its matmul lacks raises before the check
  EMBER_CHECK(r.dtype() == out.dtype(), Error, "tensordot: Expected the output tensor to have dtype ",
              legacy_name(r.dtype()), ", but got an output tensor with dtype ", legacy_name(out.dtype()));
  return composite_out(out, {&a, &b}, "tensordot", [&] { return r; });
}

}  // namespace ember

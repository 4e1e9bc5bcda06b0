// Derivatives of reductions, scans and softmax.
#include <string_view>

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

namespace {

// The reduced dims of an input of rank `ndim` (all of them when `dims` is empty), wrapped.
DimVector wrapped_dims(IntArrayRef dims, int64_t ndim) {
  DimVector out;
  if (ndim == 0) return out;  // a 0-dim tensor's dim 0 / -1 reduces nothing
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
  } else {
    for (int64_t d : dims) out.push_back(wrap_dim(d, ndim));
  }
  return out;
}

// Gradient of max/min-like reductions: split evenly among the elements equal to the result. With
// nan_to_nans (torch's max()/min(), evenly_distribute_backward) a NaN result goes to the NaN elements.
Tensor evenly_to_extremes(const Tensor& g, const Tensor& x, const Tensor& r, IntArrayRef dims, bool keepdim,
                          bool nan_to_nans) {
  Tensor kept = keep_dims(r, x.sizes(), dims, keepdim);
  Tensor hit = eq(x, kept);
  Tensor selected = nan_to_nans ? logical_or(hit, logical_and(isnan(x), isnan(kept))) : hit;
  Tensor mask = selected.to(g.dtype());
  Tensor count = sum(mask, DimVector(wrapped_dims(dims, x.dim())), true);
  Tensor share = div(keep_dims(g, x.sizes(), dims, keepdim), count);
  // max()/min() fill the selected elements (torch's masked_fill: a NaN gradient stays there); amax/amin multiply by
  // the mask, so a NaN gradient reaches every element, as torch's
  return nan_to_nans ? where(selected, share, wrapped_scalar(0.0)) : mul(mask, share);
}

}  // namespace

// A reduction's result (or gradient) with its reduced dims back as size 1 (keepdim form).
Tensor keep_dims(const Tensor& t, IntArrayRef in_sizes, IntArrayRef dims, bool keepdim) {
  if (keepdim) return t;
  DimVector shape(in_sizes);
  for (int64_t d : wrapped_dims(dims, int64_t(in_sizes.size()))) shape[size_t(d)] = 1;
  return t.reshape(shape);
}

void record_sum(const Tensor& r, const Tensor& x, IntArrayRef dims, bool keepdim) {
  record(dims.empty() ? "SumBackward0" : "SumBackward1", r, {&x}, {},
         [in = DimVector(x.sizes()), d = DimVector(dims), keepdim](const BackwardContext& c) {
           return TensorList{keep_dims(c.grads[0], in, d, keepdim).expand(in)};
         });
}

void record_mean(const Tensor& r, const Tensor& x, IntArrayRef dims, bool keepdim) {
  record(dims.empty() ? "MeanBackward0" : "MeanBackward1", r, {&x}, {},
         [in = DimVector(x.sizes()), d = DimVector(dims), keepdim](const BackwardContext& c) {
           double n = double(reduced_count(in, d));
           return TensorList{div(keep_dims(c.grads[0], in, d, keepdim), wrapped_scalar(n)).expand(in)};
         });
}

void record_extremes(const char* name, const Tensor& r, const Tensor& x, IntArrayRef dims, bool keepdim) {
  bool nan_to_nans = std::string_view(name) == "MaxBackward1" || std::string_view(name) == "MinBackward1";
  record(name, r, {&x}, {&x, &r}, [d = DimVector(dims), keepdim, nan_to_nans](const BackwardContext& c) {
    return TensorList{evenly_to_extremes(c.grads[0], c.saved[0], c.saved[1], d, keepdim, nan_to_nans)};
  });
}

void record_max_dim(const char* name, const Tensor& values, const Tensor& indices, const Tensor& x, int64_t dim,
                    bool keepdim) {
  record(name, values, {&x}, {&indices}, [in = DimVector(x.sizes()), dim, keepdim](const BackwardContext& c) {
    if (in.empty()) return TensorList{c.grads[0]};
    int64_t d = wrap_dim(dim, int64_t(in.size()));
    DimVector positions(in.size(), 1);
    positions[size_t(d)] = in[size_t(d)];
    Tensor pos = arange(in[size_t(d)]).view(positions);
    const int64_t ds[1] = {d};
    Tensor picked = eq(pos, keep_dims(c.saved[0], in, IntArrayRef(ds, 1), keepdim));
    Tensor g = keep_dims(c.grads[0], in, IntArrayRef(ds, 1), keepdim).expand(in);
    return TensorList{where(picked, g, zeros_like(g))};
  });
}

namespace {

// The product of the other elements along `dim`, as exclusive cumprods from both ends (torch's
// prod_safe_zeros_backward: no division, so zeros and infinities give torch's values).
Tensor product_of_others(const Tensor& x, int64_t dim) {
  int64_t n = x.sizes()[size_t(dim)];
  if (n <= 1 || x.numel() == 0) return ones_like(x);
  Tensor reversed = arange(n - 1, -1, -1);
  Tensor ones = ones_like(x.narrow(dim, 0, 1));
  auto exclusive = [&](const Tensor& t) {
    const Tensor parts[2] = {ones, t.narrow(dim, 0, n - 1)};
    return cumprod(cat(parts, dim), dim);
  };
  return mul(exclusive(x), index_select(exclusive(index_select(x, dim, reversed)), dim, reversed));
}

}  // namespace

void record_prod(const Tensor& r, const Tensor& x, IntArrayRef dims, bool keepdim) {
  // As torch: without zeros, prod / x_i; else the product of the others along the dim (of the flattened input
  // for a full product).
  record(dims.empty() ? "ProdBackward0" : "ProdBackward1", r, {&x}, {&x, &r},
         [d = DimVector(dims), keepdim](const BackwardContext& c) {
           const Tensor& r = c.saved[1];
           Tensor x = c.saved[0].to(r.dtype());  // prod(dtype=): computed in the result's dtype, as torch
           Tensor g = keep_dims(c.grads[0], x.sizes(), d, keepdim);
           if (x.dim() == 0) return TensorList{g};
           if (!any(eq(x, wrapped_scalar(0))).item().to_bool()) return TensorList{mul(g, div(keep_dims(r, x.sizes(), d, keepdim), x))};
           if (!d.empty()) return TensorList{mul(g, product_of_others(x, wrap_dim(d[0], x.dim())))};
           // a full product with several zeros: zeros outright, NaN and inf elements included (torch, unless the
           // backward is itself recorded)
           if (!is_grad_enabled() && sum(eq(x, wrapped_scalar(0))).item().to_int() > 1) return TensorList{zeros_like(x)};
           return TensorList{mul(g, product_of_others(x.reshape({-1}), 0).view(x.sizes()))};
         });
}

void record_softmax(bool log, const Tensor& r, const Tensor& x, int64_t dim) {
  record(log ? "LogSoftmaxBackward0" : "SoftmaxBackward0", r, {&x}, {&r}, [log, dim](const BackwardContext& c) {
    // torch's kernels compute in float for float16/bfloat16 and round once
    ScalarType out = c.saved[0].dtype(), math = opmath_dtype(out);
    Tensor g = c.grads[0].to(math), y = c.saved[0].to(math);
    int64_t d = y.dim() == 0 ? 0 : wrap_dim(dim, y.dim());
    DimVector ds = y.dim() == 0 ? DimVector{} : DimVector{d};
    if (log) return TensorList{sub(g, mul(exp(y), sum(g, ds, true))).to(out)};
    return TensorList{mul(y, sub(g, sum(mul(g, y), ds, true))).to(out)};
  });
}

namespace {

// The cumulative sum from the end along d (sums, no differences: infinities stay, as torch's).
Tensor reversed_cumsum(const Tensor& t, int64_t d) {
  Tensor reversed = arange(t.sizes()[size_t(d)] - 1, -1, -1);
  return index_select(cumsum(index_select(t, d, reversed), d), d, reversed);
}

}  // namespace

void record_cumsum(const Tensor& r, const Tensor& x, int64_t dim) {
  // Each input feeds every later output: the gradient is the reversed cumulative sum of g.
  record("CumsumBackward0", r, {&x}, {}, [dim](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    if (g.dim() == 0 || g.numel() == 0) return TensorList{g};
    return TensorList{reversed_cumsum(g, wrap_dim(dim, g.dim()))};
  });
}

void record_cumprod(const Tensor& r, const Tensor& x, int64_t dim) {
  // torch's O(n) formula: before a slice's first zero, reversed_cumsum(r * g) / x; at the first zero, the product
  // before it times the sum over [z1, z2) of g_k * prod_{z1 < j <= k} x_j; 0 after it. Terms past a zero never
  // enter (an inf there would make them NaN).
  record("CumprodBackward0", r, {&x}, {&x, &r}, [dim](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0], &r = c.saved[1];
    if (g.dim() == 0) return TensorList{g};
    int64_t d = wrap_dim(dim, g.dim()), n = g.sizes()[size_t(d)];
    if (n <= 1) return TensorList{g};
    Tensor zero = zeros_like(g);
    Tensor zeros_so_far = cumsum(eq(x, wrapped_scalar(0)), d);
    Tensor before = eq(zeros_so_far, wrapped_scalar(0)), span = eq(zeros_so_far, wrapped_scalar(1));
    Tensor grad = where(before, div(reversed_cumsum(where(before, mul(r, g), zero), d), x), zero);
    if (all(before).item().to_bool()) return TensorList{grad};
    Tensor first = logical_and(span, eq(x, wrapped_scalar(0)));
    Tensor between = logical_and(span, logical_not(first));
    Tensor after_first = cumprod(where(between, x, ones_like(x)), d);
    Tensor total = sum(mul(after_first, where(span, g, zero)), {d}, true);
    Tensor prefix = prod(where(before, x, ones_like(x)), {d}, true);
    return TensorList{where(first, mul(prefix, total).expand(g.sizes()), grad)};
  });
}

}  // namespace ember::autograd

// sort, argsort, msort, topk, kthvalue, median, nanmedian, mode and quantile: checks, shapes and autograd; the
// row kernels (src/cpu/sort_kernel.cpp) do the work along the op's dim moved last.
#include "../core/autocast_policy.h"
#include "ember/sorting.h"

#include <algorithm>
#include <cmath>

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/shape_in_place.h"
#include "ember/type_promotion.h"
#include "sorting_rows.h"

namespace ember {

namespace order {

Rows as_rows(const Tensor& x, int64_t dim) {
  int64_t d = wrap_dim(dim, x.dim());
  if (x.dim() == 0) return {x.reshape({1, 1}), {}, 0};
  Tensor moved = x.movedim({d}, {-1});
  int64_t rows = 1;
  for (int64_t i = 0; i < x.dim(); ++i) rows *= i == d ? 1 : x.sizes()[size_t(i)];
  return {moved.contiguous().reshape({rows, x.sizes()[size_t(d)]}), DimVector(moved.sizes()), d};
}

Tensor from_rows(const Tensor& result, const Rows& r) {
  if (r.moved.empty()) return result.reshape({});
  DimVector sizes = r.moved;
  sizes.back() = result.sizes()[1];
  Tensor out = result.view(sizes).movedim({-1}, {r.dim});
  return out.numel() == 0 ? empty(out.sizes(), out.options()) : out.contiguous();
}

Tensor reduced(const Tensor& result, const Rows& r, bool keepdim) {
  if (r.moved.empty()) return result.reshape({});
  Tensor out = result.view(IntArrayRef(r.moved.data(), r.moved.size() - 1));
  return keepdim ? out.unsqueeze(r.dim) : out;
}

void check_dtype(const Tensor& x, const char* kernel, bool bool_ok, bool ints_ok) {
  ScalarType t = x.dtype();
  bool ok = !is_float8(t) && (bool_ok || t != kBool) &&
            (ints_ok || t == kBool || x.is_floating_point());
  EMBER_CHECK(ok, NotImplementedError, "\"", kernel, "\" not implemented for '", legacy_name(t), "'");
}

void check_nonempty_dim(const Tensor& x, int64_t dim, const char* name) {
  EMBER_CHECK(!(x.numel() == 0 && x.dim() > 0 && x.sizes()[size_t(dim)] == 0), IndexError, name,
              ": Expected reduction dim ", dim, " to have non-zero size.");
}

void write_out(Tensor& out, const Tensor& result, const char* name, bool keep_layout) {
  EMBER_CHECK(!(autograd::is_grad_enabled() && result.requires_grad()), Error, name,
              "(): functions with out=... arguments don't support automatic differentiation, but one of the "
              "arguments requires grad.");
  EMBER_CHECK(out.dtype() == result.dtype(), Error, "Expected out tensor to have dtype ",
              dtype_info(result.dtype()).name, ", but got ", dtype_info(out.dtype()).name, " instead");
  if (keep_layout) resize_output_like(out, result);
  else resize_output(out, result.sizes());
  out.copy_(result);
}

std::pair<Tensor&, Tensor&> write_pair(Tensor& values, Tensor& indices, const std::pair<Tensor, Tensor>& r,
                                       const char* name) {
  write_out(values, r.first, name);
  write_out(indices, r.second, name);
  return {values, indices};
}

}  // namespace order

using namespace order;

namespace {

// `result` in x's layout where x is dense (as torch's sort outputs), else contiguous.
Tensor laid_out_like(const Tensor& result, const Tensor& x) {
  Tensor out = empty_like(x, result.options());
  if (std::equal(out.strides().begin(), out.strides().end(), result.strides().begin())) return result;
  return out.copy_(result);
}

std::pair<Tensor, Tensor> sort_impl(const Tensor& x, int64_t dim, bool descending, bool stable) {
  wrap_dim(dim, x.dim());
  check_dtype(x, "sorting_kernel_method_name");
  Rows r = as_rows(x, dim);
  Tensor values = empty(r.rows.sizes(), x.options());
  Tensor indices = empty(r.rows.sizes(), x.options().with_dtype(kInt64));
  if (x.numel() > 0) kernels::sort[x.device()](r.rows, values, indices, descending, stable);
  return {laid_out_like(from_rows(values, r), x), laid_out_like(from_rows(indices, r), x)};
}

std::pair<Tensor, Tensor> recorded_sort(const Tensor& x, int64_t dim, bool descending, bool stable, const char* node) {
  auto r = autograd::untracked([&] { return sort_impl(x, dim, descending, stable); });
  if (autograd::needs_grad({&x})) autograd::record_selected(node, r.first, r.second, x, wrap_dim(dim, x.dim()));
  return r;
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending) {
  return recorded_sort(x, dim, descending, false, "SortBackward0");
}
std::pair<Tensor, Tensor> sort(const Tensor& x, std::optional<bool> stable, int64_t dim, bool descending) {
  return recorded_sort(x, dim, descending, stable.value_or(false), "SortBackward1");
}
std::pair<Tensor&, Tensor&> sort_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim, bool descending,
                                     bool stable) {
  return write_pair(values, indices, sort(x, stable, dim, descending), "sort");
}
Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  return autograd::untracked([&] { return sort_impl(x, dim, descending, stable).second; });
}
Tensor& argsort_out(Tensor& out, const Tensor& x, int64_t dim, bool descending, bool stable) {
  write_out(out, argsort(x, dim, descending, stable), "argsort");
  return out;
}
Tensor msort(const Tensor& x) { return sort(x, 0, false).first; }
Tensor& msort_out(Tensor& out, const Tensor& x) {
  write_out(out, msort(x), "msort");
  return out;
}

std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  int64_t d = wrap_dim(dim, x.dim());
  int64_t n = x.dim() == 0 ? 1 : x.sizes()[size_t(d)];
  EMBER_CHECK(k >= 0 && k <= n, Error, "selected index k out of range");
  EMBER_CHECK(x.dtype() != kBool, Error, "topk does not support bool dtypes on CPU");
  check_dtype(x, "topk_cpu");
  auto r = autograd::untracked([&]() -> std::pair<Tensor, Tensor> {
    Rows rows = as_rows(x, d);
    if (x.dim() == 0) return {x.clone(), zeros({}, x.options().with_dtype(kInt64))};
    Tensor values = empty({rows.rows.sizes()[0], k}, x.options());
    Tensor indices = empty({rows.rows.sizes()[0], k}, x.options().with_dtype(kInt64));
    if (values.numel() > 0) kernels::topk[x.device()](rows.rows, k, largest, sorted, values, indices);
    return {from_rows(values, rows), from_rows(indices, rows)};
  });
  if (autograd::needs_grad({&x})) autograd::record_selected("TopkBackward0", r.first, r.second, x, d);
  return r;
}
std::pair<Tensor&, Tensor&> topk_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t k, int64_t dim,
                                     bool largest, bool sorted) {
  return write_pair(values, indices, topk(x, k, dim, largest, sorted), "topk");
}

namespace {

// A row statistic along dim (kthvalue, median, nanmedian, mode) with its indices, recorded as `node`.
std::pair<Tensor, Tensor> row_stat(RowStat stat, const Tensor& x, int64_t k, int64_t dim, bool keepdim,
                                   const char* name, const char* kernel, const char* node) {
  int64_t d = wrap_dim(dim, x.dim());
  check_nonempty_dim(x, d, name);
  if (stat == RowStat::Kth) {
    int64_t n = x.dim() == 0 ? 1 : x.sizes()[size_t(d)];
    EMBER_CHECK(k >= 1 && k <= n, Error, "kthvalue(): selected number k out of range for dimension ", d);
  }
  // torch's kthvalue copies a 0-dim x before it looks at the dtype
  if (!(stat == RowStat::Kth && x.dim() == 0)) check_dtype(x, kernel, stat == RowStat::Mode);
  auto r = autograd::untracked([&]() -> std::pair<Tensor, Tensor> {
    Rows rows = as_rows(x, d);
    Tensor values = empty({rows.rows.sizes()[0]}, x.options());
    Tensor indices = empty({rows.rows.sizes()[0]}, x.options().with_dtype(kInt64));
    if (x.numel() > 0) kernels::row_stat[x.device()](stat, rows.rows, k, values, indices);
    return {reduced(values, rows, keepdim), reduced(indices, rows, keepdim)};
  });
  if (autograd::needs_grad({&x})) autograd::record_selected(node, r.first, r.second, x, d, keepdim);
  return r;
}

// The median of all elements (NaN for none), recorded as torch's whole-tensor node.
Tensor whole_median(const Tensor& x, bool ignore_nan) {
  check_dtype(x, "median_cpu", false);
  Tensor r = autograd::untracked([&] {
    if (x.numel() == 0) return full({}, NAN, x.options().with_dtype(kFloat64)).to(x.dtype());  // NaN cast, as torch
    Tensor flat = x.reshape({1, -1}).contiguous();
    Tensor values = empty({1}, x.options()), indices = empty({1}, x.options().with_dtype(kInt64));
    kernels::row_stat[x.device()](ignore_nan ? RowStat::NanMedian : RowStat::Median, flat, 0, values, indices);
    return values.reshape({});
  });
  if (autograd::needs_grad({&x})) autograd::record_evenly(ignore_nan ? "NanmedianBackward0" : "MedianBackward0", r, x);
  return r;
}

}  // namespace

std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
  return row_stat(RowStat::Kth, x, k, dim, keepdim, "kthvalue()", "kthvalue_cpu", "KthvalueBackward0");
}
std::pair<Tensor&, Tensor&> kthvalue_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t k, int64_t dim,
                                         bool keepdim) {
  return write_pair(values, indices, kthvalue(x, k, dim, keepdim), "kthvalue");
}
Tensor median(const Tensor& x) { return whole_median(x, false); }
std::pair<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim) {
  return row_stat(RowStat::Median, x, 0, dim, keepdim, "median()", "median_out", "MedianBackward1");
}
std::pair<Tensor&, Tensor&> median_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim, bool keepdim) {
  return write_pair(values, indices, median(x, dim, keepdim), "median");
}
Tensor nanmedian(const Tensor& x) { return whole_median(x, true); }
std::pair<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim) {
  return row_stat(RowStat::NanMedian, x, 0, dim, keepdim, "median()", "median_out", "NanmedianBackward1");
}
std::pair<Tensor&, Tensor&> nanmedian_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim,
                                          bool keepdim) {
  return write_pair(values, indices, nanmedian(x, dim, keepdim), "nanmedian");
}
std::pair<Tensor, Tensor> mode(const Tensor& x, int64_t dim, bool keepdim) {
  return row_stat(RowStat::Mode, x, 0, dim, keepdim, "mode()", "mode_cpu", "ModeBackward0");
}
std::pair<Tensor&, Tensor&> mode_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim, bool keepdim) {
  return write_pair(values, indices, mode(x, dim, keepdim), "mode");
}

// ---- quantile: torch's composite (sort, ranks, gather, lerp), so its gradient flows through those parts

namespace {

enum class Interpolation { Linear, Lower, Higher, Midpoint, Nearest };

Interpolation interpolation_mode(std::string_view s) {
  if (s == "linear") return Interpolation::Linear;
  if (s == "lower") return Interpolation::Lower;
  if (s == "higher") return Interpolation::Higher;
  if (s == "midpoint") return Interpolation::Midpoint;
  EMBER_CHECK(s == "nearest", Error, "quantile() interpolation must be one of linear, lower, higher, midpoint or "
              "nearest, but got ", s);
  return Interpolation::Nearest;
}

Tensor quantile_impl(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim, Interpolation mode,
                     bool ignore_nan) {
  int64_t d = wrap_dim(dim.value_or(0), x.dim());
  EMBER_CHECK(x.numel() > 0, Error, "quantile() input tensor must be non-empty");
  EMBER_CHECK(q.dim() <= 1, Error, "quantile() q must be a scalar or 1D tensor");
  EMBER_CHECK(x.dtype() == kFloat32 || x.dtype() == kFloat64, Error,
              "quantile() input tensor must be either float or double dtype");
  EMBER_CHECK(q.dtype() == x.dtype(), Error, "quantile() q tensor must be same dtype as the input tensor");
  DimVector out_shape;
  if (dim && x.dim() > 0) {
    out_shape = DimVector(x.sizes());
    if (keepdim) out_shape[size_t(d)] = 1;
    else out_shape.erase(size_t(d));
  } else if (keepdim) {
    out_shape = DimVector(size_t(x.dim()), 1);
  }
  EMBER_CHECK(autograd::untracked([&] { return all(logical_and(ge(q, wrapped_scalar(0)), le(q, wrapped_scalar(1)))); })
                  .item().to_bool(), Error, "quantile() q values must be in the range [0, 1]");
  Tensor sorted = !dim ? sort(x.flatten()).first
                  : d == x.dim() - 1 ? sort(x).first
                                     : sort(x.unsqueeze(-1).transpose(d, -1)).first;
  DimVector in_shape = out_shape;
  in_shape.push_back(sorted.sizes().back());
  sorted = sorted.reshape(in_shape);
  EMBER_CHECK(sorted.sizes().back() <= (int64_t(1) << 24), Error, "quantile() input tensor is too large");
  Tensor ranks;
  if (ignore_nan) {
    Tensor valid = sum(logical_not(isnan(sorted)), {-1}, true);
    ranks = mul(q, sub(valid, wrapped_scalar(1)));
    ranks = where(lt(ranks, wrapped_scalar(0)), zeros({}, ranks.options()), ranks);
  } else {
    int64_t last = sorted.sizes().back() - 1;
    ranks = where(any(isnan(sorted), {-1}, true), full({}, double(last), q.options()), mul(q, wrapped_scalar(last)));
  }
  if (mode == Interpolation::Lower) ranks = floor(ranks);
  else if (mode == Interpolation::Higher) ranks = ceil(ranks);
  else if (mode == Interpolation::Nearest) ranks = round(ranks);
  Tensor below = ranks.to(kInt64);
  Tensor result = gather(sorted, -1, below);
  if (mode == Interpolation::Linear || mode == Interpolation::Midpoint) {
    Tensor weights = mode == Interpolation::Midpoint ? full_like(ranks, 0.5) : sub(ranks, below.to(ranks.dtype()));
    result = lerp(result, gather(sorted, -1, ceil(ranks).to(kInt64)), weights);
  }
  if (q.dim() > 0) transpose_(unsqueeze_(result, 0), 0, -1);  // in place, as torch (SqueezeBackward4 on top)
  return squeeze_(result, int64_t(-1));
}

Tensor q_tensor(const Tensor& x, double q) {
  EMBER_CHECK(q >= 0 && q <= 1, Error, "quantile() q must be in the range [0, 1] but got ", q);
  return scalar_tensor(q, x.options());
}

}  // namespace

Tensor quantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  EMBER_AUTOCAST(fp32, kCPU, quantile, x, q, dim, keepdim, interpolation);
  return quantile_impl(x, q, dim, keepdim, interpolation_mode(interpolation), false);
}
Tensor quantile(const Tensor& x, double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) {
  EMBER_AUTOCAST(fp32, kCPU, quantile, x, q, dim, keepdim, interpolation);
  Tensor qt = q_tensor(x, q);
  return quantile_impl(x, qt, dim, keepdim, interpolation_mode(interpolation), false);
}
Tensor nanquantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  EMBER_AUTOCAST(fp32, kCPU, nanquantile, x, q, dim, keepdim, interpolation);
  return quantile_impl(x, q, dim, keepdim, interpolation_mode(interpolation), true);
}
Tensor nanquantile(const Tensor& x, double q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  EMBER_AUTOCAST(fp32, kCPU, nanquantile, x, q, dim, keepdim, interpolation);
  Tensor qt = q_tensor(x, q);
  return quantile_impl(x, qt, dim, keepdim, interpolation_mode(interpolation), true);
}
Tensor& quantile_out(Tensor& out, const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     std::string_view interpolation, bool ignore_nan) {
  Tensor r = quantile_impl(x, q, dim, keepdim, interpolation_mode(interpolation), ignore_nan);
  EMBER_CHECK(out.dtype() == x.dtype(), Error, "quantile() out tensor must be same dtype as the input tensor");
  write_out(out, r, ignore_nan ? "nanquantile" : "quantile", false);
  return out;
}

}  // namespace ember

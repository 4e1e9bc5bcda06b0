// cummax/cummin, searchsorted, bucketize, histc and bincount: torch's checks, dtypes and shapes around the scan
// and search kernels (src/cpu/search_kernel.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/sorting.h"
#include "ember/type_promotion.h"
#include "sorting_rows.h"

namespace ember {

using namespace order;

namespace {

// The dtype cummax/cummin scan x in: int64, float32 or float64, which hold every value of a narrower type exactly
// (so the kernels are built for three types).
ScalarType scanned_as(ScalarType t) { return t == kFloat64 ? kFloat64 : is_floating_point(t) ? kFloat32 : kInt64; }

std::pair<Tensor, Tensor> cum_extremum(bool is_max, const Tensor& x, int64_t dim) {
  const char* name = is_max ? "cummax" : "cummin";
  EMBER_CHECK(x.dim() > 0 || dim == 0 || dim == -1, IndexError, name,
              "(): Expected reduction dim -1 or 0 for scalar but got ", dim);
  // torch checks the dim only where there is something to scan: any dim of an empty tensor gives empty results
  bool any_dim = x.numel() == 0 && (dim < -x.dim() || dim >= x.dim());
  int64_t d = any_dim ? 0 : wrap_dim(dim, x.dim());
  check_dtype(x, is_max ? "cummax_cpu" : "cummin_cpu");
  auto r = autograd::untracked([&] {
    Rows rows = as_rows(x, d);
    Tensor scanned = rows.rows.to(scanned_as(x.dtype()));
    Tensor values = empty_like(scanned);
    Tensor indices = empty(rows.rows.sizes(), x.options().with_dtype(kInt64));
    if (x.numel() > 0) kernels::cum_extremum[x.device()](is_max, scanned, values, indices);
    return std::pair{from_rows(values.to(x.dtype()), rows), from_rows(indices, rows)};
  });
  if (autograd::needs_grad({&x})) {
    autograd::record_selected(is_max ? "CummaxBackward0" : "CumminBackward0", r.first, r.second, x, d);
  }
  return r;
}

}  // namespace

std::pair<Tensor, Tensor> cummax(const Tensor& x, int64_t dim) { return cum_extremum(true, x, dim); }
std::pair<Tensor, Tensor> cummin(const Tensor& x, int64_t dim) { return cum_extremum(false, x, dim); }
std::pair<Tensor&, Tensor&> cummax_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim) {
  return write_pair(values, indices, cummax(x, dim), "cummax");
}
std::pair<Tensor&, Tensor&> cummin_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim) {
  return write_pair(values, indices, cummin(x, dim), "cummin");
}

// ---- searchsorted / bucketize

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  const Tensor& b = sorted_sequence;
  EMBER_CHECK(b.dim() > 0, Error, "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
              "dimension");
  if (side) {
    EMBER_CHECK(*side == "left" || *side == "right", Error,
                "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
    EMBER_CHECK(!(*side == "left" && right), Error, "torch.searchsorted(): side and right can't be set to opposites, "
                "got side of left while right was True");
    right = *side == "right";
  }
  bool leading_match = b.dim() == values.dim() &&
                       std::equal(b.sizes().begin(), b.sizes().end() - 1, values.sizes().begin());
  EMBER_CHECK(b.dim() == 1 || leading_match, Error, "torch.searchsorted(): boundaries tensor should be 1 dimension "
              "or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got "
              "boundaries tensor ", b.sizes(), " and input value tensor ", values.sizes());
  if (sorter) {
    EMBER_CHECK(sorter->dtype() == kInt64, Error, "torch.searchsorted(): sorter must be a tensor of long dtype but "
                "got dtype ", legacy_name(sorter->dtype()));
    EMBER_CHECK(std::equal(sorter->sizes().begin(), sorter->sizes().end(), b.sizes().begin(), b.sizes().end()), Error, "torch.searchsorted(): boundary and sorter must have the same "
                "size, but got boundary tensor ", b.sizes(), "and got sorter tensor ", sorter->sizes());
  }
  const Tensor both[2] = {b, values};
  ScalarType common = result_type(both);
  EMBER_CHECK(values.numel() == 0 || (common != kBool && !is_float8(common)),
              NotImplementedError,
              "\"searchsorted_out_cpu\" not implemented for '", legacy_name(common), "'");
  return autograd::untracked([&] {
    Tensor bnd = (sorter ? gather(b, -1, *sorter) : b).to(common).contiguous();
    int64_t rows = 1;  // one row of boundaries per row of values, or one shared
    for (int64_t d = 0; d + 1 < b.dim(); ++d) rows *= b.sizes()[size_t(d)];
    bnd = bnd.reshape({rows, b.sizes().back()});
    Tensor v = values.to(common).contiguous().reshape({rows, b.dim() == 1 ? values.numel() : values.sizes().back()});
    Tensor out = empty(v.sizes(), values.options().with_dtype(out_int32 ? kInt32 : kInt64));
    if (v.numel() > 0) kernels::searchsorted[values.device()](bnd, v, out, right);
    return out.view(values.sizes());
  });
}

Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  return searchsorted(sorted_sequence, scalar_tensor(value, sorted_sequence.options().with_dtype(
                          value.is_floating_point() ? kFloat64 : value.is_bool() ? kBool : kInt64)),
                      out_int32, right, side, sorter);
}

Tensor& searchsorted_out(Tensor& out, const Tensor& sorted_sequence, const Tensor& values, bool out_int32, bool right,
                         std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  ScalarType want = out_int32 ? kInt32 : kInt64;
  EMBER_CHECK(out.dtype() == want, Error, "torch.searchsorted(): output tensor's dtype is wrong, it can only be "
              "Int(int32) or Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
              "dtype ", legacy_name(out.dtype()), " and out_int32 flag is ", out_int32 ? "True" : "False");
  write_out(out, searchsorted(sorted_sequence, values, out_int32, right, side, sorter), "searchsorted");
  return out;
}

namespace {

void check_boundaries(const Tensor& boundaries) {
  EMBER_CHECK(boundaries.dim() == 1, Error, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
}

}  // namespace

Tensor bucketize(const Tensor& x, const Tensor& boundaries, bool out_int32, bool right) {
  check_boundaries(boundaries);
  return searchsorted(boundaries, x, out_int32, right);
}
Tensor bucketize(const Scalar& x, const Tensor& boundaries, bool out_int32, bool right) {
  check_boundaries(boundaries);
  return searchsorted(boundaries, x, out_int32, right);
}
Tensor& bucketize_out(Tensor& out, const Tensor& x, const Tensor& boundaries, bool out_int32, bool right) {
  check_boundaries(boundaries);
  return searchsorted_out(out, boundaries, x, out_int32, right);
}

// ---- histc / bincount

Tensor histc(const Tensor& x, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK(bins > 0, Error, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  double lo = min.to<double>(), hi = max.to<double>();
  Tensor flat = x.detach().reshape({-1}).contiguous();
  if (lo == hi && x.numel() > 0) {
    lo = amin(flat).item().to<double>();
    hi = amax(flat).item().to<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), Error, "torch.histc: range of [", lo, ", ", hi, "] is not finite");
  EMBER_CHECK(lo < hi, Error, "torch.histc: max must be larger than min");
  if (!x.is_floating_point()) {  // torch's bin edges are made in x's dtype first
    Scalar(lo).check_fits(x.dtype());
    Scalar(hi).check_fits(x.dtype());
  }
  EMBER_CHECK(x.is_floating_point() && !is_float8(x.dtype()), NotImplementedError,
              "\"histogram_cpu\" not implemented for '", legacy_name(x.dtype()), "'");
  Tensor out = empty({bins}, x.options());
  kernels::histc[x.device()](flat, out, lo, hi);
  return out;
}

Tensor& histc_out(Tensor& out, const Tensor& x, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK(out.dtype() == x.dtype(), Error, "torch.histogram: input tensor and hist tensor should have the same "
              "dtype, but got input ", legacy_name(x.dtype()), " and hist ", legacy_name(out.dtype()));
  write_out(out, histc(x, bins, min, max), "histc");
  return out;
}

Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights, int64_t minlength) {
  EMBER_CHECK(x.dtype() != kBool && !x.is_floating_point(), NotImplementedError, "\"bincount_cpu\" not implemented for '",
              legacy_name(x.dtype()), "'");
  EMBER_CHECK(minlength >= 0, Error, "minlength should be >= 0");
  return autograd::untracked([&] {
    // No samples: int64 zeros, even with weights (of any length), as torch.
    if (x.dim() == 1 && x.numel() == 0) return zeros({minlength}, x.options().with_dtype(kInt64));
    EMBER_CHECK(x.dim() == 1, Error, "bincount only supports 1-d non-negative integral inputs.");
    auto [low, high] = aminmax(x);  // one pass
    EMBER_CHECK(low.item().to<int64_t>() >= 0, Error, "bincount only supports 1-d non-negative integral inputs.");
    EMBER_CHECK(!weights || (weights->dim() == 1 && weights->sizes()[0] == x.sizes()[0]), Error,
                "weights should be 1-d and have the same length as input");
    int64_t top = high.item().to<int64_t>();
    EMBER_CHECK(top < std::numeric_limits<int64_t>::max(), Error, "maximum value of input overflowed, it should be < ",
                std::numeric_limits<int64_t>::max(), " but got ", top);
    ScalarType dtype = !weights ? kInt64 : weights->dtype() == kFloat32 ? kFloat32 : kFloat64;
    Tensor counts = zeros({std::max(minlength, top + 1)}, x.options().with_dtype(dtype));
    Tensor w = weights ? weights->to(dtype) : ones({x.numel()}, counts.options());
    return index_put_(counts, {x.to(kInt64)}, w, true);
  });
}

}  // namespace ember

// unique and unique_consecutive. Over elements: sort (only when unique), then one pass over runs of equal
// neighbours (src/cpu/search_kernel.cpp) gives the values, counts and each element's run; integers of a short range
// are counted instead. Over slices along a
// dim: the slices as rows, ordered lexicographically by stable sorts from the last column to the first.
#include <optional>

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

using Unique = std::tuple<Tensor, Tensor, Tensor>;

Tensor long_empty(const Tensor& x) { return empty({0}, x.options().with_dtype(kInt64)); }

// Integers spanning no more values than there are elements: a histogram over [min, max] gives the distinct values
// in order and their counts without sorting (1M int64 in [0, 1e5): 11.3 -> 7 ms; torch 14.7).
std::optional<Unique> unique_by_counting(const Tensor& x, bool return_inverse, bool return_counts) {
  if (is_floating_point(x.dtype()) || x.dtype() == kBool || x.numel() < 4096) return std::nullopt;
  Tensor lo = x.amin().to(kInt64);
  if (x.amax().item().to_double() - lo.item().to_double() >= double(x.numel())) return std::nullopt;
  Tensor offsets = sub(x.reshape({-1}).to(kInt64), lo);
  Tensor counts = bincount(offsets);
  Tensor present = nonzero(counts).reshape({-1});
  Tensor inverse = long_empty(x);
  if (return_inverse) {  // an element's distinct value's rank: the present bins up to its own, less one
    inverse = index_select(sub(cumsum(gt(counts, wrapped_scalar(0)), 0), wrapped_scalar(1)), 0, offsets).view(x.sizes());
  }
  return Unique{add(present, lo).to(x.dtype()), inverse,
                return_counts ? index_select(counts, 0, present) : long_empty(x)};
}

Unique unique_elements(const Tensor& x, bool sort_first, bool return_inverse, bool return_counts) {
  if (sort_first) {
    if (auto counted = unique_by_counting(x, return_inverse, return_counts)) return *counted;
  }
  int64_t n = x.numel();
  Tensor flat = x.reshape({1, n}).contiguous();
  Tensor perm;
  if (sort_first) {
    Tensor sorted = empty({1, n}, x.options());
    if (return_inverse) perm = empty({1, n}, x.options().with_dtype(kInt64));
    if (n > 0) kernels::sort[x.device()](flat, sorted, perm, false, true);
    flat = sorted;
  }
  Tensor values = empty({n}, x.options());
  Tensor counts = return_counts ? empty({n}, x.options().with_dtype(kInt64)) : Tensor();
  Tensor group = return_inverse ? empty({n}, x.options().with_dtype(kInt64)) : Tensor();
  int64_t runs = kernels::unique_runs[x.device()](flat, values, counts, group);
  Tensor inverse = long_empty(x);
  if (return_inverse) {
    inverse = perm.defined() ? index_put(empty({n}, group.options()), {perm.reshape({n})}, group) : group;
    inverse = inverse.view(x.sizes());
  }
  return {values.narrow(0, 0, runs), inverse, return_counts ? counts.narrow(0, 0, runs) : long_empty(x)};
}

// Slices along dim: rows of the (size(dim), -1) matrix, grouped where equal (sorted first unless consecutive).
Unique unique_slices(const Tensor& x, int64_t dim, bool consecutive, bool return_inverse, bool return_counts) {
  EMBER_CHECK(x.dim() > 0, IndexError, "Dimension specified as ", dim, " but tensor has no dimensions");
  int64_t d = wrap_dim(dim, x.dim());
  int64_t m = x.sizes()[size_t(d)];
  if (m == 0) {
    DimVector sizes(x.sizes());
    return {empty(sizes, x.options()), long_empty(x), long_empty(x)};
  }
  EMBER_CHECK(x.numel() > 0, Error, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  Tensor moved = x.movedim({d}, {0}).contiguous();
  Tensor rows = moved.reshape({m, -1});
  Tensor order = arange(m, x.options().with_dtype(kInt64));
  if (!consecutive) {  // lexicographic: stable sorts by each column, the last first
    for (int64_t c = rows.sizes()[1] - 1; c >= 0; --c) {
      order = index_select(order, 0, argsort(index_select(rows.select(1, c), 0, order), 0, false, true));
    }
  }
  Tensor sorted = index_select(rows, 0, order);
  Tensor starts = ones({m}, x.options().with_dtype(kBool));
  if (m > 1) starts.narrow(0, 1, m - 1).copy_(any(ne(sorted.narrow(0, 1, m - 1), sorted.narrow(0, 0, m - 1)), {1}));
  Tensor group = sub(cumsum(starts, 0), wrapped_scalar(1));
  Tensor first = nonzero(starts).reshape({-1});
  int64_t runs = first.numel();
  DimVector out_sizes(moved.sizes());
  out_sizes[0] = runs;
  Tensor values = index_select(sorted, 0, first).view(out_sizes).movedim({0}, {d});
  Tensor inverse = return_inverse ? index_put(empty({m}, group.options()), {order}, group) : long_empty(x);
  Tensor counts = long_empty(x);
  if (return_counts) counts = index_put(zeros({runs}, group.options()), {group}, ones({m}, group.options()), true);
  return {values, inverse, counts};
}

Unique unique_impl(const Tensor& x, bool consecutive, bool return_inverse, bool return_counts,
                   std::optional<int64_t> dim) {
  check_dtype(x, dim ? "unique_dim" : "unique");
  Unique r = autograd::untracked([&] {
    return dim ? unique_slices(x, *dim, consecutive, return_inverse, return_counts)
               : unique_elements(x, !consecutive, return_inverse, return_counts);
  });
  if (autograd::needs_grad({&x})) {  // torch records the values without a formula: backward raises
    const Tensor& values = std::get<0>(r);
    if (consecutive) autograd::record_without_derivative("unique_consecutive", "UniqueConsecutiveBackward0", values, x);
    else if (dim) autograd::record_without_derivative("unique_dim", "UniqueDimBackward0", values, x);
    else autograd::record_without_derivative("_unique2", "Unique2Backward0", values, x);
  }
  return r;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool, bool return_inverse, bool return_counts,
                                          std::optional<int64_t> dim) {
  return unique_impl(x, false, return_inverse, return_counts, dim);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  return unique_impl(x, true, return_inverse, return_counts, dim);
}

}  // namespace ember

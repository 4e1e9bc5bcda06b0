// What the sparse files share: making sparse tensors from parts, layout conversions, gradient recording.
#pragma once
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "ember/sparse.h"
#include "../autograd/function.h"

namespace ember::sparse_detail {

using autograd::TensorList;

// A sparse tensor over `parts` (values give dtype and device).
Tensor make_sparse(SparseParts parts, DimVector sizes);
Tensor make_coo(Tensor indices, Tensor values, DimVector sizes, bool coalesced);
Tensor make_csr(Tensor crow, Tensor col, Tensor values, DimVector sizes);
// t's indices (copied, as torch's results own theirs) with new values; the coalesced flag kept or set.
Tensor with_values(const Tensor& t, Tensor values, std::optional<bool> coalesced = std::nullopt);

Tensor int64_tensor(const std::vector<int64_t>& values);  // a 1-D int64 CPU tensor
// a + b for the values of coinciding entries: bool is or, integers wrap, narrow floats round from float.
template <typename T>
T add_elements(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (std::is_integral_v<T>) return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
  else if constexpr (std::is_floating_point_v<T>) return a + b;
  else return T(float(a) + float(b));
}

inline IntArrayRef tail(IntArrayRef a, int64_t from) { return {a.data() + from, a.size() - size_t(from)}; }
inline DimVector concat(IntArrayRef a, IntArrayRef b) {
  DimVector r(a);
  for (int64_t v : b) r.push_back(v);
  return r;
}

// The rows of `flat` (coordinates x their dense elements) that hold a nonzero (or NaN) element, in order.
std::vector<int64_t> nonzero_rows(const Tensor& flat);

Tensor coo_to_csr(const Tensor& t);
Tensor csr_to_coo(const Tensor& t);
Tensor csr_rows(const Tensor& t);  // each entry's row (int64), from the row pointers

// The flat (row-major) position of each entry among t's sparse coordinates, int64 (nnz).
Tensor linear_positions(const Tensor& t);
// Values of `grad` (dense, or sparse of t's size) at the coordinates of sparse `mask`: (nnz, dense sizes...).
Tensor values_at(const Tensor& grad, const Tensor& mask);

// t's values as a tensor of their own (aliasing them); with t in the graph, ValuesBackward0 leads back to t.
Tensor values_alias(const Tensor& t);
// The constructor's node from a sparse result to the values it was made of (the values' gradient is the
// result's gradient at its coordinates).
void record_values_gradient(const char* node, const Tensor& result, const Tensor& values);
void record_to_dense(const Tensor& result, const Tensor& t);  // ToDenseBackward0: the gradient at t's coordinates
// A node from a sparse result to sparse input t whose formula takes the result's gradient dense and gives t's
// (dense: a sparse leaf reached only through such ops gets a dense .grad).
void record_dense_gradient(const char* node, const Tensor& result, const Tensor& t,
                           std::function<Tensor(const Tensor&)> formula);
// f applied to the values of `applied` (a, or a coalesced): the values' gradient is f's dense derivative at them;
// a gets it as a sparse gradient at applied's coordinates. Node: torch's name for f (SinBackward0).
// flagged_coalesced: whether the gradient carries the coalesced flag (torch's pow gradient, a product, does not).
void record_unary(const char* op, const Tensor& result, const Tensor& a, const Tensor& applied,
                  std::function<Tensor(const Tensor&)> fn, bool flagged_coalesced = true);
void record_sparse_sum(const Tensor& result, const Tensor& t);  // SumBackward0: the gradient at every coordinate
// A node whose gradient is its result's (clone, coalesce, a dtype conversion).
void record_pass_through(const char* node, const Tensor& result, const Tensor& t);
// SparseMaskBackward0: self gets the result's gradient at the mask's coordinates (dense when self is).
void record_sparse_mask(const Tensor& result, const Tensor& self, const Tensor& mask);
void record_coalesce(const Tensor& result, const Tensor& t);  // CoalesceBackward0: the gradient passes through

}  // namespace ember::sparse_detail

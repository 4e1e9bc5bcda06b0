// Shared by the order-statistics ops (sorting.cpp, search.cpp, unique.cpp): the dim an op works along moved last
// into a contiguous (rows, n) matrix for the row kernels, and back; dtype and out= checks.
#pragma once
#include "ember/tensor.h"

namespace ember::order {

struct Rows {
  Tensor rows;      // (R, n) contiguous
  DimVector moved;  // x's sizes with dim moved last ({} for a 0-dim x)
  int64_t dim;      // the wrapped dim (0 for a 0-dim x)
};
Rows as_rows(const Tensor& x, int64_t dim);
// A kernel's (R, m) result in x's layout: sizes `moved` with the last replaced by m, the last dim moved back to
// `dim`, contiguous (as torch's outputs).
Tensor from_rows(const Tensor& result, const Rows& r);
// The reduced results (R) of a row reduction, shaped as torch's with keepdim.
Tensor reduced(const Tensor& result, const Rows& r, bool keepdim);

// NotImplementedError "<kernel>" not implemented for '<dtype>' unless x's dtype is one the op takes: all but
// float8, and without bool or the integers where told.
void check_dtype(const Tensor& x, const char* kernel, bool bool_ok = true, bool ints_ok = true);
// IndexError where dim of x is empty (and x has elements elsewhere), as torch's zero_numel_check_dims.
void check_nonempty_dim(const Tensor& x, int64_t dim, const char* name);
// Writes `result` into an out= tensor: out's dtype must be result's; resized as torch's out= tensors (taking
// result's layout with keep_layout); a result that requires grad is refused, as torch's out= ops refuse autograd.
void write_out(Tensor& out, const Tensor& result, const char* name, bool keep_layout = true);
// write_out of a (values, indices) result into its two out= tensors.
std::pair<Tensor&, Tensor&> write_pair(Tensor& values, Tensor& indices, const std::pair<Tensor, Tensor>& r,
                                       const char* name);

}  // namespace ember::order

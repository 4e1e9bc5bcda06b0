// What the reductions share beyond ember/reduce.h: torch's float8 refusal and the identity of max/min folds.
#pragma once
#include "ember/tensor.h"

namespace ember {

// torch builds no reduction, scan or nonzero-count kernel for the float8 types (on CPU or CUDA): raises
// "\"sum_cpu\" not implemented for 'Float8_e4m3fn'" when `dtype` is a float8 type, wherever torch's kernel would run.
// `kernel` is torch's CPU kernel name, whose "_cpu" / "_out_cpu" ending becomes "_cuda" on a CUDA tensor.
void check_not_float8(const Tensor& x, const char* kernel, ScalarType dtype);
inline void check_not_float8(const Tensor& x, const char* kernel) { check_not_float8(x, kernel, x.dtype()); }

// The value a max (is_max) or min fold over dtype t starts from: its lowest or highest value, -inf or inf for the
// floating types, false or true for bool.
Scalar extremum_identity(bool is_max, ScalarType t);

}  // namespace ember

// torch builds no reduction, scan or nonzero-count kernel for the float8 types (on CPU or CUDA): the op layer raises
// its NotImplementedError wherever torch's kernel would run, and Ember builds none either.
#pragma once
#include "ember/tensor.h"

namespace ember {

// Raises "\"sum_cpu\" not implemented for 'Float8_e4m3fn'" when `dtype` is a float8 type; `kernel` is torch's CPU
// kernel name, whose "_cpu" / "_out_cpu" ending becomes "_cuda" on a CUDA tensor.
void check_not_float8(const Tensor& x, const char* kernel, ScalarType dtype);
inline void check_not_float8(const Tensor& x, const char* kernel) { check_not_float8(x, kernel, x.dtype()); }

}  // namespace ember

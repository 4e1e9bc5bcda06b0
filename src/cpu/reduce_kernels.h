// Reduction kernels: fold the reduced dims of an input into an accumulator tensor.
#pragma once
#include "../dispatch/kernels.h"

namespace ember::cpu {

// acc has the input's shape with stride 0 along reduced dims (an expanded view of the output),
// and dtype float64 for floating inputs, int64 otherwise; it must hold the op's identity.
void reduce_kernel(ReduceOp op, const Tensor& acc, const Tensor& input);

// Accurate fast sum of a contiguous run (the kernel's cascade), for other kernels' rows.
double sum_contiguous(const float* a, int64_t n);
double sum_contiguous(const double* a, int64_t n);

// For each row of a contiguous (rows, n) tensor: the max (or min) and the index of its first
// occurrence; a NaN counts as the extreme, as in torch. values: x's dtype, indices: int64, (rows,).
void arg_extremum_kernel(bool is_max, const Tensor& x, const Tensor& values, const Tensor& indices);

}  // namespace ember::cpu

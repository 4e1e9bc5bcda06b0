// What the factorizations of src/ops/linalg_*.cpp share: torch's input checks and messages, the column-major
// batches the kernels work on (src/dispatch/linalg_kernels.h), and LinAlgError from a kernel's info.
#pragma once
#include <functional>
#include <string>

#include "ember/tensor.h"

namespace ember::linalg_detail {

// torch's checks and messages, in its order: "fn: The input tensor A must have at least 2 dimensions.", then when
// `square` "fn: A must be batches of square matrices, but they are r by c matrices", then the dtype: where torch
// checks for floating types first, integers are "Expected a floating point or complex tensor" and float16/bfloat16
// "Low precision dtypes not supported" (kernel null) or the kernel's NotImplementedError (kernel "lu": "lu_cpu" not
// implemented for 'Half'); where torch goes straight to its kernel (`integers_reach_kernel`), integers get that error too.
// A kernel's NotImplementedError is not raised for an empty A unless `dispatched_when_empty` (as geqrf).
void check_matrices(const Tensor& a, const char* fn, bool square = true, const char* kernel = nullptr,
                    bool integers_reach_kernel = false, bool dispatched_when_empty = false);
// The two halves of check_matrices, for ops that check other shapes between them.
void check_matrix_shape(const Tensor& a, const char* fn, bool square = true);
void check_matrix_dtype(const Tensor& a, const char* fn, const char* kernel = nullptr,
                        bool integers_reach_kernel = false, bool dispatched_when_empty = false);
// A's batch dims (all but the last two).
DimVector batch_shape(const Tensor& a);
// A's matrices column-major in a fresh contiguous (B, c, r) buffer (never A's own memory): kernels overwrite it.
Tensor column_major(const Tensor& a);
// A (B, c, r) column-major buffer as a tensor of `batch` r x c matrices (strides rc, 1, r: torch's layout).
Tensor from_column_major(const Tensor& buffer, IntArrayRef batch);
// Raises LinAlgError "fn: [(Batch element b): ]message(k)" for the first nonzero info k, if any.
void raise_on_info(const Tensor& info, bool batched, const char* fn, const std::function<std::string(int64_t)>& message);

}  // namespace ember::linalg_detail

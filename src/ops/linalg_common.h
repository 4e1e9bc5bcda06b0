// What the factorizations of src/ops/linalg_*.cpp share: torch's input checks and messages, the column-major
// batches the kernels work on (src/dispatch/linalg_kernels.h), and LinAlgError from a kernel's info.
#pragma once
#include <functional>
#include <string>

#include "ember/tensor.h"

namespace ember::linalg_detail {

// "fn: The input tensor A must have at least 2 dimensions.", a floating dtype (not float16/bfloat16) and, when
// `square`, "fn: A must be batches of square matrices, but they are r by c matrices".
void check_matrices(const Tensor& a, const char* fn, bool square = true);
// A's batch dims (all but the last two).
DimVector batch_shape(const Tensor& a);
// A's matrices column-major in a fresh contiguous (B, c, r) buffer (never A's own memory): kernels overwrite it.
Tensor column_major(const Tensor& a);
// A (B, c, r) column-major buffer as a tensor of `batch` r x c matrices (strides rc, 1, r: torch's layout).
Tensor from_column_major(const Tensor& buffer, IntArrayRef batch);
// Raises LinAlgError "fn: [(Batch element b): ]message(k)" for the first nonzero info k, if any.
void raise_on_info(const Tensor& info, bool batched, const char* fn, const std::function<std::string(int64_t)>& message);

}  // namespace ember::linalg_detail

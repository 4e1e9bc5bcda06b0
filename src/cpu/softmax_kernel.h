// Softmax and log-softmax along the last dim of a contiguous (rows, n) tensor.
#pragma once
#include "ember/tensor.h"

namespace ember::cpu {

// out (same shape and dtype as x, contiguous) = softmax (or log_softmax) of each row of x.
void softmax_kernel(const Tensor& x, const Tensor& out, bool log);

}  // namespace ember::cpu

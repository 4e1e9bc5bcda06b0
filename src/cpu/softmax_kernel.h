// Softmax and log-softmax along the last dim of a contiguous (rows, n) tensor.
#pragma once
#include "ember/tensor.h"

namespace ember::cpu {

// out (same shape and dtype as x, contiguous) = softmax (or log_softmax) of each row of x. `source`: the
// dtype x was widened from; a float16/bfloat16 log_softmax rounds each row's sum and its log to it, as
// torch's last-dim kernel keeps them in the input dtype.
void softmax_kernel(const Tensor& x, const Tensor& out, bool log, ScalarType source);

}  // namespace ember::cpu

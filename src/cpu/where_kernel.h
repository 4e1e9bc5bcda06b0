// where(cond, a, b) on the CPU (kernels::where).
#pragma once
#include "ember/tensor.h"

namespace ember::cpu {

void where_kernel(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);

}  // namespace ember::cpu

// The CPU column of kernels::svd (LAPACK's gesdd).
#pragma once
#include "ember/tensor.h"

namespace ember::cpu {

void svd_kernel(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vh, bool full);

}  // namespace ember::cpu

// CPU kernels of the shape utilities (kernels::triangle).
#pragma once
#include "ember/tensor.h"

namespace ember::cpu {

void triangle_kernel(const Tensor& dst, const Tensor& src, bool upper, int64_t diagonal);

}  // namespace ember::cpu

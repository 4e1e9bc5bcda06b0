// Affine quantization and dequantization on the CPU (kernels::quantize, kernels::dequantize).
#pragma once
#include "../dispatch/kernels.h"

namespace ember::cpu {

void quantize_kernel(const Tensor& dst, const Tensor& src, const kernels::AffineParams& params);
void dequantize_kernel(const Tensor& dst, const Tensor& src, const kernels::AffineParams& params);

}  // namespace ember::cpu

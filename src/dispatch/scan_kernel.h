// The running sum and product behind cumsum and cumprod (the CPU's in src/cpu/search_kernel.cpp).
#pragma once
#include "kernel_table.h"
#include "ember/tensor.h"

namespace ember::kernels {

// out[r, i] = rows[r, 0] + ... + rows[r, i] (or the product) for contiguous (R, n) tensors of one dtype, the op
// layer's accumulator (int64, float32 or float64); out may be rows itself.
using ScanFn = void (*)(const Tensor& rows, const Tensor& out, bool product);
extern KernelTable<ScanFn> scan;

}  // namespace ember::kernels

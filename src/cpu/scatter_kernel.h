// The CPU kernels of the scatter family (see kernels::scatter and kernels::masked_select).
#pragma once
#include "../dispatch/kernels.h"

namespace ember::cpu {

std::optional<int64_t> scatter_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                      ScatterReduce op);
Tensor masked_select_kernel(const Tensor& src, const Tensor& mask);

}  // namespace ember::cpu

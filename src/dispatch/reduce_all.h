// A whole-tensor reduction in one pass, for backends where the general reduce (accumulators filled, folded, cast:
// several kernels) costs more than the fold itself: sum, mean, amax and friends of a contiguous tensor on a GPU.
#pragma once
#include "../dispatch/kernels.h"

namespace ember::kernels {

// op (Sum, Max or Min) over every element of the dense (contiguous in some dim order), non-empty `input` as a 0-dim tensor of `dtype` (input's,
// or int64 for an integral sum), folded in float64/int64 as kernels::reduce and divided by `divisor` (a mean) before
// rounding to dtype. Undefined for what it does not handle: the caller then takes the general path.
using ReduceAllFn = Tensor (*)(ReduceOp op, const Tensor& input, ScalarType dtype, double divisor);
extern KernelTable<ReduceAllFn> reduce_all;

}  // namespace ember::kernels

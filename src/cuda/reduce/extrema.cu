// The reduction kernels of max and min over the floating dtypes (reduce.cuh; the integers' are in integral.cu).
#include "reduce.cuh"

namespace ember::cuda_backend::reduction {

template void reduce_op<ReduceOp::Max, Family::Floating>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::Min, Family::Floating>(const Tensor&, const Tensor&);

}  // namespace ember::cuda_backend::reduction

// The reduction kernels of max and min, for every dtype (reduce.cuh).
#include "reduce.cuh"

namespace ember::cuda_backend::reduction {

template void reduce_op<ReduceOp::Max>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::Min>(const Tensor&, const Tensor&);

}  // namespace ember::cuda_backend::reduction

// The reduction kernels of sum, for every dtype (reduce.cuh).
#include "reduce.cuh"

namespace ember::cuda_backend::reduction {

template void reduce_op<ReduceOp::Sum, true>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::Sum, false>(const Tensor&, const Tensor&);

}  // namespace ember::cuda_backend::reduction

// The reduction kernels of prod, for every dtype (reduce.cuh).
#include "reduce.cuh"

namespace ember::cuda_backend::reduction {

template void reduce_op<ReduceOp::Prod>(const Tensor&, const Tensor&);

}  // namespace ember::cuda_backend::reduction

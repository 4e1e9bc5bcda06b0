// The reduction kernels of all and any, which fold the truth of the input (a bool tensor: reduce.cuh).
#include "reduce.cuh"

namespace ember::cuda_backend::reduction {

template void reduce_op<ReduceOp::All>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::Any>(const Tensor&, const Tensor&);

}  // namespace ember::cuda_backend::reduction

// The reduction kernels over bool and the integers of prod, max and min, and of all and any, which fold the truth
// of the input (a bool tensor: reduce.cuh). Sum's are in sum.cu.
#include "reduce.cuh"

namespace ember::cuda_backend::reduction {

template void reduce_op<ReduceOp::Prod, false>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::Max, false>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::Min, false>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::All, false>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::Any, false>(const Tensor&, const Tensor&);

}  // namespace ember::cuda_backend::reduction

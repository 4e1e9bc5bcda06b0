// The reduction kernels over bool and the integers of prod, max and min, and of all and any, which fold the truth
// of the input (a bool tensor: reduce.cuh). Sum's are in sum.cu.
#include "reduce.cuh"

namespace ember::cuda_backend::reduction {

template void reduce_op<ReduceOp::Prod, Family::Integral>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::Max, Family::Integral>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::Min, Family::Integral>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::All, Family::Integral>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::Any, Family::Integral>(const Tensor&, const Tensor&);

}  // namespace ember::cuda_backend::reduction

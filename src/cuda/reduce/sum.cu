// The reduction kernels of sum, for every dtype but float8 (reduce.cuh).
#include "reduce.cuh"

namespace ember::cuda_backend::reduction {

template void reduce_op<ReduceOp::Sum, Family::Integral>(const Tensor&, const Tensor&);
template void reduce_op<ReduceOp::Sum, Family::Floating>(const Tensor&, const Tensor&);

}  // namespace ember::cuda_backend::reduction

// The reduction kernels of prod over the floating dtypes but float8 (reduce.cuh; the integers' in integral.cu).
#include "reduce.cuh"

namespace ember::cuda_backend::reduction {

template void reduce_op<ReduceOp::Prod, Family::Floating>(const Tensor&, const Tensor&);

}  // namespace ember::cuda_backend::reduction

// The reduction kernels of prod over floating dtypes (reduce.cuh; the integers' are in integral.cu).
#include "reduce.cuh"

namespace ember::cuda_backend::reduction {

template void reduce_op<ReduceOp::Prod, true>(const Tensor&, const Tensor&);

}  // namespace ember::cuda_backend::reduction

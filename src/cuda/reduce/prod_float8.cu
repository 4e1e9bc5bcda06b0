// The reduction kernels of prod over the float8 dtypes (reduce.cuh): the costliest, a software conversion at each
// step of a 64-element unrolled fold, so built apart from the other floats' (prod.cu) to keep each unit under ~30 s.
#include "reduce.cuh"

namespace ember::cuda_backend::reduction {

template void reduce_op<ReduceOp::Prod, Family::Float8>(const Tensor&, const Tensor&);

}  // namespace ember::cuda_backend::reduction

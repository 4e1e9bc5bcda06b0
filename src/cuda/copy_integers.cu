// copy_ kernels into bool and integer dtypes from every other dtype (copy_convert.cuh).
#include "copy_convert.cuh"

namespace ember::cuda_backend {

template void copy_convert<true>(const StridedPlan<2>&, ScalarType, ScalarType);

}  // namespace ember::cuda_backend

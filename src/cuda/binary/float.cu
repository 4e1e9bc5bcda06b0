// Kernels of the Float rows of binary_ops.def: div, atan2, copysign, hypot, xlogy (integers arrive converted to float).
#include "binary.cuh"

namespace ember::cuda_backend {

template void binary_rows_kernel<BinaryKind::Float, true>(BinaryOp, const TensorIterator&, const Scalar&,
                                                          std::optional<float>);

}  // namespace ember::cuda_backend

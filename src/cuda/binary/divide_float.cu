// Kernels of the Divide rows of binary_ops.def (remainder, floor_divide, fmod, div's rounding modes) on floating types.
#include "binary.cuh"

namespace ember::cuda_backend {

template void binary_rows_kernel<BinaryKind::Divide, true>(BinaryOp, const TensorIterator&, const Scalar&,
                                                           std::optional<float>);

}  // namespace ember::cuda_backend

// Kernels of the Logical rows of binary_ops.def (logical and/or/xor: bool results of the inputs' truth), every dtype.
#include "binary.cuh"

namespace ember::cuda_backend {

template void binary_rows_kernel<BinaryKind::Logical, true>(BinaryOp, const TensorIterator&, const Scalar&,
                                                            std::optional<float>);
template void binary_rows_kernel<BinaryKind::Logical, false>(BinaryOp, const TensorIterator&, const Scalar&,
                                                             std::optional<float>);

}  // namespace ember::cuda_backend

// Kernels of the Compare rows of binary_ops.def (eq, lt, ...) on floating types.
#include "binary.cuh"

namespace ember::cuda_backend {

template void binary_rows_kernel<BinaryKind::Compare, true>(BinaryOp, const TensorIterator&, const Scalar&,
                                                            std::optional<float>);

}  // namespace ember::cuda_backend

// Kernels of the Compare rows of binary_ops.def (eq, lt, ...) on integers and bool.
#include "binary.cuh"

namespace ember::cuda_backend {

template void binary_rows_kernel<BinaryKind::Compare, false>(BinaryOp, const TensorIterator&, const Scalar&,
                                                             std::optional<float>);

}  // namespace ember::cuda_backend

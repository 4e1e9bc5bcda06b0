// Kernels of the Arith rows of binary_ops.def (add, sub, mul, pow, the extrema) on integers and bool.
#include "binary.cuh"

namespace ember::cuda_backend {

template void binary_rows_kernel<BinaryKind::Arith, false>(BinaryOp, const TensorIterator&, const Scalar&,
                                                           std::optional<float>);

}  // namespace ember::cuda_backend

// Kernels of the Bitwise rows of binary_ops.def: bitwise and/or/xor and the shifts, on integers and bool.
#include "binary.cuh"

namespace ember::cuda_backend {

template void binary_rows_kernel<BinaryKind::Bitwise, false>(BinaryOp, const TensorIterator&, const Scalar&,
                                                             std::optional<float>);

}  // namespace ember::cuda_backend

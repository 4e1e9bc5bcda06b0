// Kernels of the Float rows of binary_ops.def: div, atan2, copysign (integers arrive converted to float).
#define EMBER_CUDA_BINARY_Float EMBER_CUDA_BINARY_CASE
#include "binary.cuh"

namespace ember::cuda_backend {

void binary_float(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  using namespace binary_flags;
  switch (op) {
#define EMBER_BINARY_OP EMBER_CUDA_BINARY_ROW
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
    default: throw Error("binary_float: not a Float op");
  }
}

}  // namespace ember::cuda_backend

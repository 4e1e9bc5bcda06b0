// Kernels of the Bitwise rows of binary_ops.def: bitwise and/or/xor and the shifts, on integers and bool.
#define EMBER_CUDA_BINARY_Bitwise EMBER_CUDA_BINARY_CASE
#include "binary.cuh"

namespace ember::cuda_backend {

void binary_bitwise(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  using namespace binary_flags;
  switch (op) {
#define EMBER_BINARY_OP EMBER_CUDA_BINARY_ROW
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
    default: throw Error("binary_bitwise: not a Bitwise op");
  }
}

}  // namespace ember::cuda_backend

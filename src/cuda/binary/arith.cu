// Kernels of the Arith rows of binary_ops.def: add, sub, mul, pow and the extrema.
#define EMBER_CUDA_BINARY_Arith EMBER_CUDA_BINARY_CASE
#include "binary.cuh"

namespace ember::cuda_backend {

void binary_arith(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  using namespace binary_flags;
  switch (op) {
#define EMBER_BINARY_OP EMBER_CUDA_BINARY_ROW
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
    default: throw Error("binary_arith: not a Arith op");
  }
}

}  // namespace ember::cuda_backend

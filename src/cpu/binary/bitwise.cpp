// Kernels of the Bitwise rows of binary_ops.def: bitwise and/or/xor and the shifts, on integers and bool.
#define EMBER_BINARY_KIND 'B'
#define EMBER_BINARY_Bitwise EMBER_BINARY_CASE
#include "binary_kernels.h"
#include "binary_loop.h"

namespace ember::cpu {

void binary_bitwise_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  using namespace functors;
  using namespace binary_flags;
  switch (op) {
#include "ember/binary_ops.def"
    default: throw Error("binary_bitwise_kernel: not a Bitwise op");
  }
}

}  // namespace ember::cpu

// Kernels of the Arith rows of binary_ops.def: add, sub, mul, pow and the extrema.
#define EMBER_BINARY_KIND 'A'
#define EMBER_BINARY_Arith EMBER_BINARY_CASE
#include "binary_kernels.h"
#include "binary_loop.h"

namespace ember::cpu {

void binary_arith_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  using namespace functors;
  using namespace binary_flags;
  switch (op) {
#include "ember/binary_ops.def"
    default: throw Error("binary_arith_kernel: not an Arith op");
  }
}

}  // namespace ember::cpu

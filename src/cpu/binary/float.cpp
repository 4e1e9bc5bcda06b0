// Kernels of the Float rows of binary_ops.def: div and atan2 (integers arrive converted to float).
#define EMBER_BINARY_KIND 'F'
#define EMBER_BINARY_Float EMBER_BINARY_CASE
#include "binary_kernels.h"
#include "binary_loop.h"

namespace ember::cpu {

void binary_float_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  using namespace functors;
  using namespace binary_flags;
  switch (op) {
#include "ember/binary_ops.def"
    default: throw Error("binary_float_kernel: not a Float op");
  }
}

}  // namespace ember::cpu

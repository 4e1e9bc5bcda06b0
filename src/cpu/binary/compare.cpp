// Kernels of the Compare and Logical rows of binary_ops.def: comparisons and logical ops, with bool results.
#define EMBER_BINARY_Compare(Op, expr, flags)                                                  \
  case BinaryOp::Op:                                                                            \
    visit_kind<'C', (flags)>(it.common_dtype(), [&]<typename T>(T) {                            \
      using C = Compute<T>;                                                                     \
      binary_loop<bool, T>(it, [](T x, T y) { C a = C(x), b = C(y); return bool(expr); });     \
    });                                                                                         \
    return;
#define EMBER_BINARY_Logical EMBER_BINARY_Compare
#include "binary_kernels.h"
#include "binary_loop.h"

namespace ember::cpu {

void binary_compare_kernel(BinaryOp op, const TensorIterator& it, const Scalar&, std::optional<float>) {
  using namespace binary_flags;
  switch (op) {
#include "ember/binary_ops.def"
    default: throw Error("binary_compare_kernel: not a Compare or Logical op");
  }
}

}  // namespace ember::cpu

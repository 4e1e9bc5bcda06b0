// The CPU's binary kernel: each op runs in the file of its kind.
#include "binary_kernels.h"

namespace ember::cpu {

void binary_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  if (it.numel() == 0) return;
  switch (binary_kind(op)) {
    case BinaryKind::Arith: return binary_arith_kernel(op, it, alpha, wide_b);
    case BinaryKind::Divide: return binary_divide_kernel(op, it, alpha, wide_b);
    case BinaryKind::Float: return binary_float_kernel(op, it, alpha, wide_b);
    case BinaryKind::Bitwise: return binary_bitwise_kernel(op, it, alpha, wide_b);
    case BinaryKind::Compare: case BinaryKind::Logical: return binary_compare_kernel(op, it, alpha, wide_b);
  }
}

}  // namespace ember::cpu

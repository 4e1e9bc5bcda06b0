// The CUDA binary kernel: each op runs in the file of its kind and dtype family (host code only).
#include <optional>

#include "../kernels.h"

namespace ember::cuda_backend {

// Defined in binary.cuh; each (kind, family) is built in a file of its own (arith_float.cu, ...).
template <BinaryKind Kind, bool Floating>
void binary_rows_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);

void binary_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  if (it.numel() == 0) return;
  bool floating = is_floating_point(it.common_dtype());
  auto run = [&]<BinaryKind K>() {
    if (floating) binary_rows_kernel<K, true>(op, it, alpha, wide_b);
    else binary_rows_kernel<K, false>(op, it, alpha, wide_b);
  };
  switch (binary_kind(op)) {
    case BinaryKind::Arith: return run.operator()<BinaryKind::Arith>();
    case BinaryKind::Divide: return run.operator()<BinaryKind::Divide>();
    case BinaryKind::Compare: return run.operator()<BinaryKind::Compare>();
    case BinaryKind::Logical: return run.operator()<BinaryKind::Logical>();
    // the op layer converts integers to float for Float ops and refuses floating types for Bitwise ones
    case BinaryKind::Float: return binary_rows_kernel<BinaryKind::Float, true>(op, it, alpha, wide_b);
    case BinaryKind::Bitwise: return binary_rows_kernel<BinaryKind::Bitwise, false>(op, it, alpha, wide_b);
  }
}

}  // namespace ember::cuda_backend

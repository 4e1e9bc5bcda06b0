// Kernels of the Compare and Logical rows of binary_ops.def: comparisons and logical ops, with bool results.
#define EMBER_CUDA_BINARY_Compare(Op, kind, flags)                                                 \
  case BinaryOp::Op:                                                                               \
    visit_kind<BinaryKind::Compare, (flags)>(it.common_dtype(), [&]<typename T>(T) {               \
      elementwise_tensors<bool, T, T>(it.output(), inputs_of<2>(it), Compared<T, binary_rows::Op>{}); \
    });                                                                                            \
    return;
#define EMBER_CUDA_BINARY_Logical EMBER_CUDA_BINARY_Compare
#include "binary.cuh"

namespace ember::cuda_backend {

void binary_compare(BinaryOp op, const TensorIterator& it) {
  using namespace binary_flags;
  switch (op) {
#define EMBER_BINARY_OP EMBER_CUDA_BINARY_ROW
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
    default: throw Error("binary_compare: not a Compare or Logical op");
  }
}

}  // namespace ember::cuda_backend

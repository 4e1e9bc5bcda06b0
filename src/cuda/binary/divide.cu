// Kernels of the Divide rows of binary_ops.def: remainder, floor_divide, fmod and div's rounding modes.
#define EMBER_CUDA_BINARY_Divide EMBER_CUDA_BINARY_CASE
#include "binary.cuh"

namespace ember::cuda_backend {

void binary_divide(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  using namespace binary_flags;
  switch (op) {
#define EMBER_BINARY_OP EMBER_CUDA_BINARY_ROW
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
    EMBER_CUDA_BINARY_CASE(DivFloor, Divide, WideScalar)
    case BinaryOp::DivTrunc:  // with a wide b, all in float (torch's opmath path)
      visit_kind<BinaryKind::Divide, WideScalar>(it.common_dtype(), [&]<typename T>(T) {
        using C = functors::Compute<T>;
        if (wide_b) run_binary<T, WideScalar>(it, alpha, wide_b, binary_rows::DivTrunc<C>{});
        else run_binary<T, 0>(it, alpha, wide_b, binary_rows::DivTrunc<T>{});
      });
      return;
    default: throw Error("binary_divide: not a Divide op");
  }
}

}  // namespace ember::cuda_backend

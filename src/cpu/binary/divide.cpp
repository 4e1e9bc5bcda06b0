// Kernels of the Divide rows of binary_ops.def: remainder, floor_divide, fmod and div's rounding modes.
#define EMBER_BINARY_KIND 'D'
#define EMBER_BINARY_Divide EMBER_BINARY_CASE
#include "binary_kernels.h"
#include "binary_loop.h"

namespace ember::cpu {

void binary_divide_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  using namespace functors;
  using namespace binary_flags;
  switch (op) {
#include "ember/binary_ops.def"
    EMBER_BINARY_CASE(DivFloor, floor_divide(a, b), WideScalar)
    case BinaryOp::DivTrunc:  // with a wide b, all in float (torch's opmath path)
      visit_kind<'D', WideScalar>(it.common_dtype(), [&]<typename T>(T) {
        using C = Compute<T>;
        if (wide_b) run_binary<T, WideScalar>(it, alpha, wide_b, [](C a, C b) { return trunc_divide<C>(a, b); });
        else run_binary<T, 0>(it, alpha, wide_b, [](C a, C b) { return trunc_divide<T>(a, b); });
      });
      return;
    default: throw Error("binary_divide_kernel: not a Divide op");
  }
}

}  // namespace ember::cpu

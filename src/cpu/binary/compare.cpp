// Kernels of the Compare and Logical rows of binary_ops.def: comparisons and logical ops, with bool results.
// gt and ge run as lt and le with the operands swapped (is_swapped_row).
#define EMBER_BINARY_Compare(Op, expr, flags)                                        \
  case BinaryOp::Op:                                                                  \
    return compare_row<BinaryOp::Op, (flags)>(it, swapped, [](auto a, auto b) {       \
      using C [[maybe_unused]] = decltype(a);  /* logical rows spell C(0) */           \
      return expr;                                                                    \
    });
#define EMBER_BINARY_Logical EMBER_BINARY_Compare
#include "binary_kernels.h"
#include "binary_loop.h"

namespace ember::cpu {

namespace {

// Row Op's function fn (of two values in the compute type) over the iterator, operands swapped where `swapped`.
template <BinaryOp Op, unsigned Flags, typename Fn>
void compare_row(const TensorIterator& it, bool swapped, Fn fn) {
  if constexpr (is_swapped_row(Op)) {
    throw Error("binary_compare_kernel: gt and ge run as lt and le");
  } else {
    visit_kind<'C', Flags>(it.common_dtype(), [&]<typename T>(T) {
      using C = Compute<T>;
      binary_loop<bool, T>(it, [fn](T x, T y) { return bool(fn(C(x), C(y))); }, swapped);
    });
  }
}

}  // namespace

void binary_compare_kernel(BinaryOp op, const TensorIterator& it, const Scalar&, std::optional<float>) {
  using namespace binary_flags;
  bool swapped = is_swapped_row(op);
  switch (unswapped_row(op)) {
#include "ember/binary_ops.def"
    default: throw Error("binary_compare_kernel: not a Compare or Logical op");
  }
}

}  // namespace ember::cpu

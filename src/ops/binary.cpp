// Binary elementwise ops: each plans a TensorIterator and runs one kernel.
#include "../cpu/binary_kernels.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

using cpu::BinaryOp;

Tensor run(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha = 1) {
  if (op == BinaryOp::Sub) {
    EMBER_CHECK(!(a.dtype() == kBool && b.dtype() == kBool), Error,
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead.");
    EMBER_CHECK(a.dtype() != kBool && b.dtype() != kBool, Error,
                "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
                "mask, use the `~` or `logical_not()` operator instead.");
  }
  const Tensor inputs[2] = {a, b};
  ElementwiseConfig config;
  config.bool_output = op >= BinaryOp::Eq;
  config.int_to_float = op == BinaryOp::Div || op == BinaryOp::Atan2;
  TensorIterator it(out, inputs, config);
  bool bitwise = op >= BinaryOp::BitAnd && op <= BinaryOp::ShiftRight;
  if (bitwise && is_floating_point(it.common_dtype())) {
    const char* names[] = {"bitwise_and_cpu", "bitwise_or_cpu", "bitwise_xor_cpu", "lshift_cpu", "rshift_cpu"};
    throw NotImplementedError(str("\"", names[int(op) - int(BinaryOp::BitAnd)], "\" not implemented for '",
                                  dtype_info(it.common_dtype()).legacy_name, "'"));
  }
  bool identity_pow = op == BinaryOp::Pow && b.impl()->is_wrapped_number && b.item().to_double() == 1.0;
  if (it.common_dtype() == kBool && !identity_pow) {  // x ** 1 is allowed for bool x, as in torch
    const char* kernel = op == BinaryOp::Pow ? "pow" : op == BinaryOp::Remainder ? "remainder_cpu"
                       : op == BinaryOp::FloorDivide ? "div_floor_cpu" : op == BinaryOp::Fmod ? "fmod_cpu" : nullptr;
    EMBER_CHECK(!kernel, NotImplementedError, "\"", kernel ? kernel : "", "\" not implemented for 'Bool'");
  }
  bool integral = !is_floating_point(it.common_dtype());
  if (integral && (op == BinaryOp::Remainder || op == BinaryOp::FloorDivide || op == BinaryOp::Fmod)) {
    // Checked before writing anything, so a failing in-place op leaves its tensor as it was.
    EMBER_CHECK(!any(eq(it.input(1), wrapped_scalar(0))).item().to_bool(), Error, "ZeroDivisionError");
  }
  if (integral && op == BinaryOp::Pow && b.impl()->is_wrapped_number) {
    EMBER_CHECK(b.item().to_int() >= 0, Error, "Integers to negative integer powers are not allowed.");
  }
  if ((op == BinaryOp::Add || op == BinaryOp::Sub) && !is_floating_point(it.common_dtype())) {
    EMBER_CHECK(!alpha.is_floating_point(), Error, "For integral input tensors, argument alpha must not be a floating point number.");
  }
  cpu::binary_kernel(op, it, alpha);
  return it.finish();
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) { return run(BinaryOp::Add, {}, a, b, alpha); }
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) { return run(BinaryOp::Sub, {}, a, b, alpha); }
Tensor mul(const Tensor& a, const Tensor& b) { return run(BinaryOp::Mul, {}, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return run(BinaryOp::Div, {}, a, b); }
Tensor pow(const Tensor& a, const Tensor& b) { return run(BinaryOp::Pow, {}, a, b); }
Tensor remainder(const Tensor& a, const Tensor& b) { return run(BinaryOp::Remainder, {}, a, b); }
Tensor floor_divide(const Tensor& a, const Tensor& b) { return run(BinaryOp::FloorDivide, {}, a, b); }
Tensor fmod(const Tensor& a, const Tensor& b) { return run(BinaryOp::Fmod, {}, a, b); }
Tensor atan2(const Tensor& a, const Tensor& b) { return run(BinaryOp::Atan2, {}, a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return run(BinaryOp::Maximum, {}, a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return run(BinaryOp::Minimum, {}, a, b); }
Tensor fmax(const Tensor& a, const Tensor& b) { return run(BinaryOp::Fmax, {}, a, b); }
Tensor fmin(const Tensor& a, const Tensor& b) { return run(BinaryOp::Fmin, {}, a, b); }
Tensor bitwise_and(const Tensor& a, const Tensor& b) { return run(BinaryOp::BitAnd, {}, a, b); }
Tensor bitwise_or(const Tensor& a, const Tensor& b) { return run(BinaryOp::BitOr, {}, a, b); }
Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return run(BinaryOp::BitXor, {}, a, b); }
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b) { return run(BinaryOp::ShiftLeft, {}, a, b); }
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b) { return run(BinaryOp::ShiftRight, {}, a, b); }
Tensor logical_and(const Tensor& a, const Tensor& b) { return run(BinaryOp::LogicalAnd, {}, a, b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return run(BinaryOp::LogicalOr, {}, a, b); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return run(BinaryOp::LogicalXor, {}, a, b); }
Tensor eq(const Tensor& a, const Tensor& b) { return run(BinaryOp::Eq, {}, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return run(BinaryOp::Ne, {}, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return run(BinaryOp::Lt, {}, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return run(BinaryOp::Le, {}, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return run(BinaryOp::Gt, {}, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return run(BinaryOp::Ge, {}, a, b); }

Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  run(BinaryOp::Add, out, a, b, alpha);
  return out;
}
Tensor& sub_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  run(BinaryOp::Sub, out, a, b, alpha);
  return out;
}
Tensor& mul_out(Tensor& out, const Tensor& a, const Tensor& b) {
  run(BinaryOp::Mul, out, a, b);
  return out;
}
Tensor& div_out(Tensor& out, const Tensor& a, const Tensor& b) {
  run(BinaryOp::Div, out, a, b);
  return out;
}
Tensor& bitwise_and_out(Tensor& out, const Tensor& a, const Tensor& b) {
  run(BinaryOp::BitAnd, out, a, b);
  return out;
}
Tensor& bitwise_or_out(Tensor& out, const Tensor& a, const Tensor& b) {
  run(BinaryOp::BitOr, out, a, b);
  return out;
}
Tensor& bitwise_xor_out(Tensor& out, const Tensor& a, const Tensor& b) {
  run(BinaryOp::BitXor, out, a, b);
  return out;
}
Tensor& pow_out(Tensor& out, const Tensor& a, const Tensor& b) {
  run(BinaryOp::Pow, out, a, b);
  return out;
}
Tensor& remainder_out(Tensor& out, const Tensor& a, const Tensor& b) {
  run(BinaryOp::Remainder, out, a, b);
  return out;
}
Tensor& floor_divide_out(Tensor& out, const Tensor& a, const Tensor& b) {
  run(BinaryOp::FloorDivide, out, a, b);
  return out;
}

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, wrapped_scalar(b)); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, wrapped_scalar(b)); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, wrapped_scalar(b)); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, wrapped_scalar(b)); }

}  // namespace ember

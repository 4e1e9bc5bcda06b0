// Elementwise binary kernels over a planned TensorIterator.
#pragma once
#include "../iter/tensor_iterator.h"
#include "ember/scalar.h"

#include <optional>

namespace ember::cpu {

// Arithmetic ops come first; comparisons (from Eq on) produce bool.
enum class BinaryOp {
  // DivFloor is FloorDivide as div(rounding_mode='floor') (differentiable); DivTrunc rounds toward 0.
  Add, Sub, Mul, Div, Pow, Remainder, FloorDivide, DivFloor, DivTrunc, Fmod, Atan2, Maximum, Minimum, Fmax, Fmin,
  BitAnd, BitOr, BitXor, ShiftLeft, ShiftRight,
  Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor,
};

// Runs `op` over iterator `it` (two inputs). `alpha` scales the second input of Add and Sub. `wide_b`, when
// given, replaces a one-element second input of a float16/bfloat16 Mul or division at float precision.
void binary_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b = {});

// Does torch's kernel for `op` read a one-element second operand at its original precision (in float)
// when the op computes in float16/bfloat16? (mul and the three divisions: original_scalar_value<opmath_t>)
bool reads_wide_scalar(BinaryOp op);

// x ** exp for a number exponent torch computes without pow (0.5, -0.5, -1, 2, 3, -2: sqrt, rsqrt,
// reciprocal and products, with their signed zeros and roundings) on float32/64 and bfloat16.
// Returns false, writing nothing, for other exponents and dtypes.
bool pow_scalar_kernel(const TensorIterator& it, double exp);

}  // namespace ember::cpu

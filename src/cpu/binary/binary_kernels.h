// The CPU's binary kernels: one function per kind of binary_ops.def row, each in its own file.
#pragma once
#include "../../dispatch/kernels.h"

namespace ember::cpu {

void binary_arith_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
void binary_divide_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
void binary_float_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
void binary_bitwise_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
void binary_compare_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
// The kernel registered for the CPU: runs `op` in the file of its kind.
void binary_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
bool pow_scalar_kernel(const TensorIterator& it, double exp);

}  // namespace ember::cpu

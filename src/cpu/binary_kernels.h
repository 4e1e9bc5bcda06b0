// Elementwise binary kernels over a planned TensorIterator.
#pragma once
#include "../iter/tensor_iterator.h"
#include "ember/scalar.h"

namespace ember::cpu {

enum class BinaryOp { Add, Sub, Mul, Div, Eq, Ne, Lt, Le, Gt, Ge };

// Runs `op` over iterator `it` (two inputs). `alpha` scales the second input of Add and Sub.
void binary_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha);

}  // namespace ember::cpu

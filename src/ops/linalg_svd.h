// Matrix norms of singular values, for linalg.matrix_norm (ord 'nuc', 2, -2).
#pragma once
#include "ember/tensor.h"

namespace ember {

enum class SingularValueNorm { Nuclear, Largest, Smallest };  // their sum, largest, smallest

// The norm of each matrix of a over dims (d0, d1) (wrapped, different), reduced as the matrix norms are.
Tensor singular_value_norm(const Tensor& a, SingularValueNorm which, int64_t d0, int64_t d1, bool keepdim);

}  // namespace ember

// Derivatives of the matrix factorizations (formulas_decompositions.cpp), for real matrices, as torch's: each
// records torch's node on the results of an op of ember/decompositions.h.
#pragma once
#include <string_view>

#include "ember/tensor.h"

namespace ember::autograd {

void record_inverse(const Tensor& inverse, const Tensor& a);                              // LinalgInvExBackward0
void record_det(const Tensor& det, const Tensor& a);                                      // LinalgDetBackward0
void record_slogdet(const Tensor& sign, const Tensor& logabsdet, const Tensor& a);         // LinalgSlogdetBackward0
// left: A X = B, else X A = B; vector: B (and X) a vector (or batch of them), left only.
void record_solve(const Tensor& x, const Tensor& a, const Tensor& b, bool vector, bool left);  // LinalgSolveExBackward0
void record_solve_triangular(const Tensor& x, const Tensor& a, const Tensor& b, bool upper, bool left,
                             bool unitriangular);
void record_cholesky(const Tensor& factor, const Tensor& a, bool upper);                  // LinalgCholeskyExBackward0
void record_qr(const Tensor& q, const Tensor& r, const Tensor& a, std::string_view mode);  // LinalgQrBackward0
void record_pinv(const Tensor& pinv, const Tensor& a);                                 // LinalgPinvBackward0
void record_eigh(const Tensor& w, const Tensor& v, const Tensor& a);                      // LinalgEighBackward0
void record_eigvalsh(const Tensor& w, const Tensor& v, const Tensor& a);                  // (v saved, not returned)

}  // namespace ember::autograd

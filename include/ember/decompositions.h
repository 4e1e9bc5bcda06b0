// Matrix factorizations and what is built on them, as torch.linalg's (src/ops/linalg_solve.cpp,
// src/ops/linalg_factor.cpp): inverse, determinants, linear solves, Cholesky, QR, the symmetric eigendecomposition,
// matrix powers, the pseudo-inverse and the rank. Each takes a batch (..., m, n) of float32 or float64 matrices;
// results are column-major, as torch's. A failure on the input (a singular matrix, one that is not
// positive-definite) raises LinAlgError naming the batch element, unless an _ex form returns the info instead.
#pragma once
#include <optional>
#include <string_view>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

Tensor linalg_inv(const Tensor& a);
// (inverse, info): info (int32, A's batch shape) is k > 0 where U's diagonal element k is zero (A singular).
std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& a, bool check_errors = false);
Tensor inverse(const Tensor& a);
Tensor linalg_det(const Tensor& a);
Tensor det(const Tensor& a);
// (sign, log |det|): sign 0 and -inf for a singular matrix.
std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& a);
// log det: nan where det < 0, -inf where it is 0.
Tensor logdet(const Tensor& a);
// X with A X = B (left) or X A = B; B (..., n, k) or, for left, a vector (n) / batch of vectors (..., n).
Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left = true);
// The same with A triangular: its other triangle is not read, its diagonal taken as ones when unitriangular.
Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left = true,
                               bool unitriangular = false);
// L with A = L L^T (or U with A = U^T U when upper), read from that triangle of A.
Tensor linalg_cholesky(const Tensor& a, bool upper = false);
// (L, info): info k > 0 where the leading minor of order k is not positive-definite.
std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& a, bool upper = false, bool check_errors = false);
// (Q, R) with A = Q R; mode "reduced", "complete" or "r" (R alone, Q empty).
std::tuple<Tensor, Tensor> linalg_qr(const Tensor& a, std::string_view mode = "reduced");
// (eigenvalues ascending, eigenvectors as columns) of symmetric A, read from its lower (uplo "L") or upper triangle.
std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& a, std::string_view uplo = "L");
Tensor linalg_eigvalsh(const Tensor& a, std::string_view uplo = "L");
// A^n by repeated squaring; n < 0 inverts A first.
Tensor linalg_matrix_power(const Tensor& a, int64_t n);
// The Moore-Penrose inverse through the SVD (or eigh when hermitian): singular values at most
// max(atol, rtol * largest) are dropped; rtol defaults to eps * max(m, n) when neither is given.
Tensor linalg_pinv(const Tensor& a, std::optional<double> atol = {}, std::optional<double> rtol = {},
                   bool hermitian = false);
// The number of singular values (|eigenvalues| when hermitian) above the same tolerance (int64).
Tensor linalg_matrix_rank(const Tensor& a, std::optional<double> atol = {}, std::optional<double> rtol = {},
                          bool hermitian = false);

}  // namespace ember

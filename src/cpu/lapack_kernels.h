// The CPU column of the factorization tables (src/dispatch/linalg_kernels.h), through LAPACK.
#pragma once
#include "ember/tensor.h"

namespace ember::cpu {

void lu_factor_kernel(const Tensor& a, const Tensor& pivots, const Tensor& info);
void lu_solve_kernel(const Tensor& lu, const Tensor& pivots, const Tensor& rhs);
void triangular_solve_kernel(const Tensor& a, bool upper, bool unitriangular, const Tensor& rhs);
void cholesky_kernel(const Tensor& a, bool upper, const Tensor& info);
void qr_kernel(const Tensor& a, const Tensor& q);
void eigh_kernel(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info);

}  // namespace ember::cpu

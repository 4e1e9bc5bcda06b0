// The kernel tables of the matrix factorizations (ember/decompositions.h). Matrices are column-major, as LAPACK's
// and as torch returns them: a contiguous (B, c, r) buffer holds each r x c matrix transposed. Info tensors are
// int32 (B), LAPACK's convention: 0 for success, k > 0 naming the (1-based) element that failed. A device without
// a column raises NotImplementedError.
#pragma once
#include "kernel_table.h"
#include "ember/tensor.h"

namespace ember::kernels {

// LU with partial pivoting of square matrices, in place: A = P L U (L unit lower, U upper, both in a); pivots
// (B, n) int32, the 1-based rows swapped in order (LAPACK's getrf); info k > 0 where U's diagonal element k is zero.
using LuFactorFn = void (*)(const Tensor& a, const Tensor& pivots, const Tensor& info);
extern KernelTable<LuFactorFn> lu_factor;

// X for A X = B from A's LU factorization; rhs (B, k, n) holds B and is overwritten by X.
using LuSolveFn = void (*)(const Tensor& lu, const Tensor& pivots, const Tensor& rhs);
extern KernelTable<LuSolveFn> lu_solve;

// X for A X = B with A triangular (the other triangle is not read); rhs (B, k, n) holds B and is overwritten by X.
// A zero on the diagonal gives infinities and NaNs, as torch's.
using TriangularSolveFn = void (*)(const Tensor& a, bool upper, bool unitriangular, const Tensor& rhs);
extern KernelTable<TriangularSolveFn> triangular_solve;

// Cholesky, in place: lower L (A = L L^T) from A's lower triangle, or upper U (A = U^T U) from its upper; the other
// triangle is left as it was. info k > 0 where the leading minor of order k is not positive-definite.
using CholeskyFn = void (*)(const Tensor& a, bool upper, const Tensor& info);
extern KernelTable<CholeskyFn> cholesky;

// Householder QR of m x n matrices: a is overwritten by R in its upper triangle; q (B, qcols, m) gets Q's first
// qcols columns (min(m, n), or m for the complete Q), or is undefined for R alone.
using QrFn = void (*)(const Tensor& a, const Tensor& q);
extern KernelTable<QrFn> qr;

// Symmetric eigendecomposition read from A's lower (or upper) triangle: w (B, n) gets the eigenvalues ascending;
// with vectors, a is overwritten by the eigenvectors as its columns. info k > 0 where it did not converge.
using EighFn = void (*)(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info);
extern KernelTable<EighFn> eigh;

}  // namespace ember::kernels

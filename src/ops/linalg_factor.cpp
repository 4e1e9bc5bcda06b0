// Cholesky, QR and the symmetric eigendecomposition (ember/decompositions.h), and the pseudo-inverse and rank built
// on the SVD / eigh.
#include <algorithm>
#include <limits>

#include "../autograd/formulas_decompositions.h"
#include "../autograd/function.h"
#include "../dispatch/kernels.h"
#include "../dispatch/linalg_kernels.h"
#include "ember/creation.h"
#include "ember/decompositions.h"
#include "ember/linalg.h"
#include "ember/math_ops.h"
#include "ember/pointwise.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/shape_utils.h"
#include "ember/type_promotion.h"
#include "linalg_common.h"

namespace ember {

using namespace linalg_detail;

namespace {

// Zeroes the triangle a factor does not use, in place (the column-major strides are kept).
void keep_triangle(const Tensor& m, bool upper) {
  if (m.numel() == 0) return;
  const int64_t r = m.sizes()[m.dim() - 2], c = m.sizes()[m.dim() - 1];
  Tensor matrices = m.view({-1, r, c});  // m's batch dims are contiguous over its matrices
  kernels::triangle[m.device()](matrices, matrices, upper, 0);
}

std::tuple<Tensor, Tensor> cholesky_factor(const Tensor& a, bool upper) {
  return autograd::untracked([&] {
    Tensor buffer = column_major(a);
    Tensor info = zeros({buffer.sizes()[0]}, a.options().dtype(kInt32));
    if (buffer.numel() > 0) kernels::cholesky[a.device()](buffer, upper, info);
    DimVector batch = batch_shape(a);
    Tensor factor = from_column_major(buffer, batch);
    keep_triangle(factor, upper);
    return std::tuple{factor, info.reshape(batch)};
  });
}

std::string not_positive_definite(int64_t k) {
  return str("The factorization could not be completed because the input is not positive-definite (the leading "
             "minor of order ", k, " is not positive-definite).");
}

char check_uplo(std::string_view uplo) {
  EMBER_CHECK(uplo == "L" || uplo == "U" || uplo == "l" || uplo == "u", Error,
              "Expected UPLO argument to be 'L' or 'U', but got ", uplo);
  return char(std::toupper(uplo[0]));
}

// Eigenvalues and (when `vectors`) eigenvectors, unrecorded.
std::tuple<Tensor, Tensor> symmetric_eigen(const Tensor& a, bool upper, bool vectors) {
  return autograd::untracked([&] {
    Tensor buffer = column_major(a);
    const int64_t batches = buffer.sizes()[0], n = buffer.sizes()[1];
    Tensor w = empty({batches, n}, a.options());
    Tensor info = zeros({batches}, a.options().dtype(kInt32));
    if (buffer.numel() > 0) kernels::eigh[a.device()](buffer, w, vectors, upper, info);
    raise_on_info(info, a.dim() > 2, "linalg.eigh", [](int64_t k) {
      return str("The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                 "repeated eigenvalues (error code: ", k, ").");
    });
    DimVector batch = batch_shape(a), values_shape = batch;
    values_shape.push_back(n);
    return std::tuple{w.reshape(values_shape), vectors ? from_column_major(buffer, batch) : Tensor()};
  });
}

// max(atol, rtol * largest) per matrix, from its singular values (descending) or |eigenvalues|; torch's default
// rtol is eps * max(m, n) when neither tolerance is given, else 0 unless given.
Tensor tolerance(const Tensor& values, const Tensor& a, std::optional<double> atol, std::optional<double> rtol) {
  const double eps = a.dtype() == kFloat64 ? std::numeric_limits<double>::epsilon()
                                           : double(std::numeric_limits<float>::epsilon());
  const int64_t m = a.sizes()[a.dim() - 2], n = a.sizes()[a.dim() - 1];
  double relative = rtol ? *rtol : (atol && *atol > 0) ? 0.0 : eps * double(std::max(m, n));
  Tensor largest = values.sizes().back() > 0 ? amax(values, {-1}, true) : zeros_like(values.narrow(-1, 0, 0));
  return clamp_min(mul(largest, wrapped_scalar(relative)), wrapped_scalar(atol.value_or(0.0)));
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& a, bool upper, bool check_errors) {
  check_matrices(a, "linalg.cholesky", true, "cholesky");
  auto [factor, info] = cholesky_factor(a, upper);
  if (check_errors) raise_on_info(info, a.dim() > 2, "linalg.cholesky", not_positive_definite);
  if (autograd::needs_grad({&a})) autograd::record_cholesky(factor, a, upper);
  return {factor, info};
}

Tensor linalg_cholesky(const Tensor& a, bool upper) { return std::get<0>(linalg_cholesky_ex(a, upper, true)); }

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& a, std::string_view mode) {
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", Error, "qr received unrecognized mode '", mode,
              "' but expected one of 'reduced' (default), 'r', or 'complete'");
  check_matrices(a, "linalg.qr", false, "geqrf", false, true);
  const int64_t m = a.sizes()[a.dim() - 2], n = a.sizes()[a.dim() - 1], k = std::min(m, n);
  const bool complete = mode == "complete", want_q = mode != "r";
  auto [q, r] = autograd::untracked([&] {
    Tensor buffer = column_major(a);
    const int64_t batches = buffer.sizes()[0], q_cols = complete ? m : k, r_rows = complete ? m : k;
    Tensor q_buffer = want_q ? zeros({batches, q_cols, m}, a.options()) : Tensor();
    if (buffer.numel() > 0) {
      kernels::qr[a.device()](buffer, q_buffer);
    } else if (want_q && q_cols > 0) {  // nothing to factor: Q's columns are the identity's
      q_buffer.copy_(eye(q_cols, m, a.options()));
    }
    DimVector batch = batch_shape(a);
    // R: the first r_rows rows of the factored buffer, upper triangle, in a column-major tensor of its own
    Tensor r_buffer = zeros({batches, n, r_rows}, a.options());
    const int64_t copied = std::min(r_rows, m);
    if (copied > 0) r_buffer.narrow(2, 0, copied).copy_(buffer.narrow(2, 0, copied));
    Tensor r_matrix = from_column_major(r_buffer, batch);
    keep_triangle(r_matrix, true);
    Tensor q_matrix = want_q ? from_column_major(q_buffer, batch) : empty({0}, a.options());
    return std::tuple{q_matrix, r_matrix};
  });
  if (autograd::needs_grad({&a})) autograd::record_qr(q, r, a, mode);
  return {q, r};
}

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& a, std::string_view uplo) {
  const bool upper = check_uplo(uplo) == 'U';
  check_matrices(a, "linalg.eigh", true, "linalg_eigh", true);
  auto [w, v] = symmetric_eigen(a, upper, true);
  if (autograd::needs_grad({&a})) autograd::record_eigh(w, v, a);
  return {w, v};
}

Tensor linalg_eigvalsh(const Tensor& a, std::string_view uplo) {
  const bool upper = check_uplo(uplo) == 'U';
  check_matrices(a, "linalg.eigh", true, "linalg_eigh", true);
  const bool grad = autograd::needs_grad({&a});
  auto [w, v] = symmetric_eigen(a, upper, grad);
  if (grad) autograd::record_eigvalsh(w, v, a);
  return w;
}

Tensor linalg_pinv(const Tensor& a, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  EMBER_CHECK(a.dim() >= 2 && (a.dtype() == kFloat32 || a.dtype() == kFloat64), Error, "linalg.pinv(",
              legacy_name(a.dtype()), "{", int_list(a.sizes()), "}): expected a tensor with 2 or more "
              "dimensions of float, double, cfloat or cdouble types");
  Tensor p = autograd::untracked([&] {
    if (hermitian) {  // A = V diag(w) V^T: pinv = V diag(1 / w, where |w| is above the tolerance) V^T
      auto [w, v] = linalg_eigh(a);
      Tensor keep = gt(abs(w), tolerance(abs(w), a, atol, rtol));
      Tensor inverse_values = where(keep, reciprocal(w), zeros_like(w));
      return matmul(mul(v, inverse_values.unsqueeze(-2)), v.mT());
    }
    auto [u, s, vh] = linalg_svd(a, false);
    Tensor keep = gt(s, tolerance(s, a, atol, rtol));
    Tensor inverse_values = where(keep, reciprocal(s), zeros_like(s));
    return matmul(mul(vh.mT(), inverse_values.unsqueeze(-2)), u.mT());
  });
  if (autograd::needs_grad({&a})) autograd::record_pinv(p, a);
  return p;
}

Tensor linalg_matrix_rank(const Tensor& a, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  EMBER_CHECK(a.dim() >= 2, Error, "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.");
  EMBER_CHECK(a.dtype() == kFloat32 || a.dtype() == kFloat64, Error,
              "This function doesn't handle types other than float and double");
  Tensor values = hermitian ? abs(linalg_eigvalsh(a)) : linalg_svdvals(a);
  return sum(gt(values, tolerance(values, a, atol, rtol)), {-1});
}

}  // namespace ember

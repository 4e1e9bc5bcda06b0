// LU-based linear algebra (ember/decompositions.h): inverse, determinants, solves, triangular solves and matrix
// powers. One LU factorization (kernels::lu_factor, partial pivoting) serves inv, det, slogdet and solve.
#include <algorithm>
#include <cmath>

#include "../autograd/formulas_decompositions.h"
#include "../autograd/function.h"
#include "../dispatch/linalg_kernels.h"
#include "ember/creation.h"
#include "ember/decompositions.h"
#include "ember/layout.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "linalg_common.h"

namespace ember {

using namespace linalg_detail;

namespace {

struct Lu {
  Tensor factors;  // (B, n, n) column-major: L below the diagonal, U on and above
  Tensor pivots;   // (B, n) int32, 1-based
  Tensor info;     // (B) int32
};

Lu lu_factorize(const Tensor& a) {
  Lu lu{column_major(a), Tensor(), Tensor()};
  const int64_t batches = lu.factors.sizes()[0], n = lu.factors.sizes()[1];
  lu.pivots = empty({batches, n}, a.options().dtype(kInt32));
  lu.info = zeros({batches}, a.options().dtype(kInt32));
  if (lu.factors.numel() > 0) kernels::lu_factor[a.device()](lu.factors, lu.pivots, lu.info);
  return lu;
}

// Solves in place: rhs (B, k, n) column-major right-hand sides become the solutions.
void lu_solve_in_place(const Lu& lu, const Tensor& rhs) {
  if (rhs.numel() > 0) kernels::lu_solve[rhs.device()](lu.factors, lu.pivots, rhs);
}

// (-1)^(rows swapped) per matrix, in A's dtype.
Tensor permutation_sign(const Lu& lu, ScalarType dtype) {
  const int64_t n = lu.pivots.sizes()[1];
  Tensor swaps = sum(ne(lu.pivots, arange(1, n + 1, 1, lu.pivots.options())), {-1});
  return sub(wrapped_scalar(1), mul(remainder(swaps, wrapped_scalar(2)), wrapped_scalar(2))).to(dtype);
}

std::string singular_inverse(int64_t k) {
  return str("The diagonal element ", k, " is zero, the inversion could not be completed because the input matrix "
             "is singular.");
}

// inv and its info, unrecorded.
std::tuple<Tensor, Tensor> invert(const Tensor& a) {
  return autograd::untracked([&] {
    Lu lu = lu_factorize(a);
    const int64_t n = a.sizes().back();
    Tensor identity = zeros({lu.factors.sizes()[0], n, n}, a.options());
    identity.diagonal(0, -2, -1).fill_(1);
    lu_solve_in_place(lu, identity);
    DimVector batch = batch_shape(a);
    return std::tuple{from_column_major(identity, batch), lu.info.reshape(batch)};
  });
}

// B's matrix form for solve: a vector (or batch of vectors matching A's batch) becomes one column.
bool solve_vector_case(const Tensor& a, const Tensor& b) {
  if (b.dim() == 1) return true;
  if (b.dim() != a.dim() - 1) return false;
  return std::equal(b.sizes().begin(), b.sizes().end(), a.sizes().begin());
}

// A and B expanded to their common batch shape (matrices kept).
std::tuple<Tensor, Tensor, DimVector> broadcast_batches(const Tensor& a, const Tensor& b) {
  DimVector batch = broadcast_shapes(batch_shape(a), batch_shape(b));
  auto expanded = [&](const Tensor& t) {
    DimVector shape(batch);
    shape.push_back(t.sizes()[t.dim() - 2]);
    shape.push_back(t.sizes()[t.dim() - 1]);
    return t.expand(shape);
  };
  return {expanded(a), expanded(b), batch};
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& a, bool check_errors) {
  check_matrices(a, "linalg.inv");
  auto [x, info] = invert(a);
  if (check_errors) raise_on_info(info, a.dim() > 2, "linalg.inv", singular_inverse);
  if (autograd::needs_grad({&a})) autograd::record_inverse(x, a);
  return {x, info};
}

Tensor linalg_inv(const Tensor& a) { return std::get<0>(linalg_inv_ex(a, true)); }

Tensor inverse(const Tensor& a) { return linalg_inv(a); }

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& a) {
  check_matrices(a, "linalg.slogdet");
  auto [sign, logabsdet] = autograd::untracked([&] {
    Lu lu = lu_factorize(a);
    Tensor diagonal = lu.factors.diagonal(0, -2, -1);
    DimVector batch = batch_shape(a);
    Tensor s = mul(prod(sgn(diagonal), {-1}), permutation_sign(lu, a.dtype()));
    return std::tuple{s.reshape(batch), sum(log(abs(diagonal)), {-1}).reshape(batch)};
  });
  if (autograd::needs_grad({&a})) autograd::record_slogdet(sign, logabsdet, a);
  return {sign, logabsdet};
}

Tensor linalg_det(const Tensor& a) {
  check_matrices(a, "linalg.det", true, "lu");
  Tensor d = autograd::untracked([&] {
    Lu lu = lu_factorize(a);
    Tensor product = prod(lu.factors.diagonal(0, -2, -1), {-1});
    return mul(product, permutation_sign(lu, a.dtype())).reshape(batch_shape(a));
  });
  if (autograd::needs_grad({&a})) autograd::record_det(d, a);
  return d;
}

Tensor det(const Tensor& a) { return linalg_det(a); }

// torch's composite: log |det| where det > 0, nan where it is negative (WhereBackward0 on top of slogdet's node).
Tensor logdet(const Tensor& a) {
  check_matrices(a, "logdet");
  auto [sign, logabsdet] = linalg_slogdet(a);
  return where(lt(sign, wrapped_scalar(0)), wrapped_scalar(NAN), logabsdet);
}

namespace {

// B's rows (left: A X = B) or columns (X A = B) must match A's order, as torch's message names them.
void check_solve_shapes(const char* fn, const Tensor& a, const Tensor& b_matrix, bool left) {
  const int64_t n = a.sizes().back();
  const int64_t rows = b_matrix.sizes()[b_matrix.dim() - 2], cols = b_matrix.sizes().back();
  EMBER_CHECK((left ? rows : cols) == n, Error, fn, ": Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", rows, "x", cols, ")");
}

// X A = B is A^T X^T = B^T: `solve_left` on the transposes (its result transposed back is row-major).
template <typename SolveLeft>
Tensor solve_either_side(const Tensor& a, const Tensor& b, bool left, const SolveLeft& solve_left) {
  return left ? solve_left(a, b) : solve_left(a.mT(), b.mT()).mT();
}

}  // namespace

Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left) {
  check_matrix_shape(a, "linalg.solve");
  EMBER_CHECK(a.dtype() == b.dtype(), Error, "linalg.solve: Expected A and B to have the same dtype, but found A of "
              "type ", legacy_name(a.dtype()), " and B of type ", legacy_name(b.dtype()),
              " instead");
  const bool vector = left && solve_vector_case(a, b);
  Tensor b_matrix = vector ? b.unsqueeze(-1) : b;
  EMBER_CHECK(b_matrix.dim() >= 2, Error, "linalg.solve: The input tensor B must have at least 2 dimensions.");
  check_solve_shapes("linalg.solve", a, b_matrix, left);
  check_matrix_dtype(a, "linalg.solve", "lu");
  Tensor x = autograd::untracked([&] {
    Tensor solution = solve_either_side(a, b_matrix, left, [](const Tensor& lhs, const Tensor& rhs_matrix) {
      auto [a_full, b_full, batch] = broadcast_batches(lhs, rhs_matrix);
      Lu lu = lu_factorize(a_full);
      raise_on_info(lu.info, a_full.dim() > 2, "torch.linalg.solve",
                    [](int64_t) { return std::string("The solver failed because the input matrix is singular."); });
      Tensor rhs = column_major(b_full);
      lu_solve_in_place(lu, rhs);
      return from_column_major(rhs, batch);
    });
    if (!vector) return solution;
    // torch lays a batch of solution vectors out as the columns of one matrix per outer batch: (..., k, n) with
    // strides (..., 1, k)
    Tensor vectors = solution.squeeze(-1);
    return vectors.dim() < 2 ? vectors : vectors.mT().contiguous().mT();
  });
  if (autograd::needs_grad({&a, &b})) autograd::record_solve(x, a, b, vector, left);
  return x;
}

Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  check_matrix_shape(a, "linalg.solve_triangular");
  EMBER_CHECK(b.dim() >= 2, Error, "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.");
  check_solve_shapes("linalg.solve_triangular", a, b, left);
  check_matrix_dtype(a, "linalg.solve_triangular", "triangular_solve", true);
  EMBER_CHECK(a.dtype() == b.dtype(), Error, "linalg.solve_triangular: Expected A and B to have the same dtype, but "
              "found A of type ", legacy_name(a.dtype()), " and B of type ",
              legacy_name(b.dtype()), " instead");
  check_solve_shapes("linalg.solve_triangular", a, b, left);
  Tensor x = autograd::untracked([&] {
    // on the transposes (X A = B), A's triangle flips
    const bool upper_here = left ? upper : !upper;
    Tensor solution = solve_either_side(a, b, left, [&](const Tensor& lhs, const Tensor& rhs_matrix) {
      auto [a_full, b_full, batch] = broadcast_batches(lhs, rhs_matrix);
      Tensor factor = column_major(a_full), rhs = column_major(b_full);
      if (rhs.numel() > 0) kernels::triangular_solve[a.device()](factor, upper_here, unitriangular, rhs);
      return from_column_major(rhs, batch);
    });
    return left ? solution : solution.mT().contiguous().mT();  // column-major either way, as torch's
  });
  if (autograd::needs_grad({&a, &b})) autograd::record_solve_triangular(x, a, b, upper, left, unitriangular);
  return x;
}

Tensor linalg_matrix_power(const Tensor& a, int64_t n) {
  EMBER_CHECK(a.dim() >= 2, Error, "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(a.sizes()[a.dim() - 2] == a.sizes()[a.dim() - 1], Error, "linalg.matrix_power: A must be batches of "
              "square matrices, but they are ", a.sizes()[a.dim() - 2], " by ", a.sizes().back(), " matrices");
  if (n == 0) {  // identities copied over a clone of A, so the result stays in A's graph (CopyBackwards, as torch)
    Tensor r = a.clone(MemoryFormat::Contiguous);
    return r.copy_(eye(a.sizes().back(), std::nullopt, a.options()).expand(a.sizes()));
  }
  if (n == 1) return a.clone(MemoryFormat::Contiguous);
  Tensor base = n < 0 ? linalg_inv(a) : a;
  uint64_t k = n < 0 ? uint64_t(-(n + 1)) + 1 : uint64_t(n);
  Tensor result;
  // binary powering: base^(2^i) for each set bit of k
  for (Tensor square = base; k > 0; k >>= 1) {
    if (k & 1) result = result.defined() ? matmul(result, square) : square;
    if (k > 1) square = matmul(square, square);
  }
  return result;
}

}  // namespace ember

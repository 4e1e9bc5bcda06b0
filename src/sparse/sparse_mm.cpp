// Sparse x dense matrix products: a row-parallel kernel over the CSR form (COO is coalesced into it first).
#include <algorithm>
#include <type_traits>

#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/parallel.h"
#include "sparse_internal.h"

namespace ember {

namespace {

template <typename T>
T multiply_add(T acc, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return T(U(acc) + U(a) * U(b));
  } else {
    return acc + a * b;
  }
}

// out (m, p) = csr (m, k) @ dense (k, p), dense contiguous, every element of out written; each row of out is a sum
// of scaled rows of dense. Columns go in blocks of 256 bytes whose sums stay in registers over the row's entries; the block of the
// entry 16 ahead is prefetched (the rows are gathered at random: 2x on a 10000 x 64 float matrix).
template <typename T>
void csr_dense_kernel(const int64_t* crow, const int64_t* col, const T* vals, const T* dense, T* out, int64_t m,
                      int64_t p) {
  constexpr int64_t kBlock = 256 / int64_t(sizeof(T)), kAhead = 16;
  const int64_t last = m == 0 ? 0 : std::max<int64_t>(crow[m] - 1, 0);
  int64_t per_row = m == 0 ? 0 : (crow[m] / m + 1) * p;
  int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(per_row, 1));
  parallel_for(0, m, grain, [=](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      T* __restrict o = out + r * p;
      int64_t j0 = 0;
      for (; j0 + kBlock <= p; j0 += kBlock) {
        T acc[kBlock] = {};
        for (int64_t k = crow[r]; k < crow[r + 1]; ++k) {
          const char* ahead = reinterpret_cast<const char*>(dense + col[std::min(k + kAhead, last)] * p + j0);
          for (int line = 0; line < 256; line += 64) __builtin_prefetch(ahead + line);
          const T v = vals[k];
          const T* __restrict row = dense + col[k] * p + j0;
          for (int64_t j = 0; j < kBlock; ++j) acc[j] = multiply_add(acc[j], v, row[j]);
        }
        for (int64_t j = 0; j < kBlock; ++j) o[j0 + j] = acc[j];
      }
      std::fill(o + j0, o + p, T(0));
      for (int64_t k = crow[r]; k < crow[r + 1] && j0 < p; ++k) {
        const T v = vals[k];
        const T* __restrict row = dense + col[k] * p;
        for (int64_t j = j0; j < p; ++j) o[j] = multiply_add(o[j], v, row[j]);
      }
    }
  });
}

void check_mm_operands(const Tensor& a, const Tensor& b) {
  a.size(-2);  // torch's IndexError for a 1-D sparse operand
  EMBER_CHECK(a.dim() == 2, Error, "addmm: matrices expected, got ", a.dim(), "D tensor");
  EMBER_CHECK(a.dense_dim() == 0, Error, "addmm: matrices expected, got ", a.sparse_dim(), "D tensor");
  b.size(1);  // torch's IndexError for a 1-D dense operand
  EMBER_CHECK(b.dim() == 2, Error, "addmm: matrices expected, got ", b.dim(), "D tensor");
  EMBER_CHECK(a.size(1) == b.size(0), Error, "addmm: Argument #3 (dense): Expected dim 0 size ", a.size(1), ", got ",
              b.size(0));
  EMBER_CHECK(a.dtype() == b.dtype(), Error, "expected scalar type ", legacy_name(a.dtype()), " but found ",
              legacy_name(b.dtype()));
  EMBER_CHECK(a.dtype() != kBool, NotImplementedError, "\"addmm_sparse_dense\" not implemented for 'Bool'");
}

// sparse (2 sparse dims) @ dense: a new dense matrix.
Tensor sparse_dense_product(const Tensor& a, const Tensor& b) {
  check_mm_operands(a, b);
  Tensor csr = a.is_sparse_csr() ? a : sparse_detail::coo_to_csr(a);
  const SparseParts& p = *csr.impl()->sparse;
  ScalarType dtype = a.dtype();
  // Narrow floats compute in float32, as torch's CPU kernels accumulate them.
  bool widen = dtype == kFloat16 || dtype == kBFloat16 || is_float8(dtype);
  ScalarType compute = widen ? kFloat32 : dtype;
  Tensor crow = p.indices.to(kInt64).contiguous(), col = p.col_indices.to(kInt64).contiguous();
  Tensor vals = p.values.to(compute).contiguous(), dense = b.to(compute).contiguous();
  Tensor out = empty({a.size(0), b.size(1)}, TensorOptions(compute));
  visit_dtype(compute, [&]<typename T>(T) {
    if constexpr (std::is_same_v<T, bool> || !(std::is_arithmetic_v<T>)) {
      throw Error("unreachable dtype in the sparse product");
    } else {
      csr_dense_kernel<T>(crow.data_ptr<int64_t>(), col.data_ptr<int64_t>(), vals.data_ptr<T>(), dense.data_ptr<T>(),
                          out.data_ptr<T>(), a.size(0), b.size(1));
    }
  });
  return widen ? out.to(dtype) : out;
}

}  // namespace

Tensor sparse_mm(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(!(a.has_sparse_layout() && b.has_sparse_layout()), NotImplementedError,
              "mm of two sparse tensors is not supported; convert one with to_dense()");
  return autograd::untracked([&] {
    if (a.has_sparse_layout()) return sparse_dense_product(a, b);
    // dense @ sparse = (sparse^T @ dense^T)^T; torch's CSR form is contiguous, its COO form this transpose
    a.size(-2);  // torch's IndexError for a 1-D dense operand
    EMBER_CHECK(a.dim() == 2, Error, "addmm: matrices expected, got ", a.dim(), "D tensor");
    Tensor bt = sparse_transpose(b.is_sparse_csr() ? sparse_detail::csr_to_coo(b) : b, 0, 1);
    Tensor r = sparse_dense_product(bt, a.t()).t();
    return b.is_sparse_csr() ? r.contiguous() : r;
  });
}

Tensor sparse_addmm(const Tensor& input, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  Tensor product = sparse_mm(a, b);
  return autograd::untracked([&] {
    Tensor scaled = alpha.is_floating_point() || alpha.to_int() != 1 ? mul(product, wrapped_scalar(alpha)) : product;
    if (!beta.is_floating_point() && beta.to_int() == 0) return add(zeros_like(scaled), scaled);
    return add(mul(input.expand(product.sizes()), wrapped_scalar(beta)), scaled);
  });
}

}  // namespace ember

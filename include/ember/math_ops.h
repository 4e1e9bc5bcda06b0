// Math ops beyond the elementwise tables: logit, signbit, nansum/nanmean, logcumsumexp, diff, cross, kron,
// tensordot, dist, cdist, the linalg norms and the SVD (hypot and xlogy are rows of binary_ops.def).
#pragma once
#include <functional>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// out= of an op computed out of place: compute()'s result copied into out (resized as torch's out= tensors), which
// must be able to take its dtype; refused when an input or out requires grad, as torch (`name` is the op's).
Tensor& composite_out(Tensor& out, std::initializer_list<const Tensor*> inputs, const char* name,
                      const std::function<Tensor()>& compute);
// torch's check of a structured op's out= tensor: out must have the result's dtype exactly.
void check_out_dtype(const Tensor& out, ScalarType expected);

// log(x / (1 - x)); with eps (>= 0), x is clamped to [eps, 1 - eps] first. Integers compute in the default float.
Tensor logit(const Tensor& x, std::optional<double> eps = {});
Tensor& logit_(Tensor& x, std::optional<double> eps = {});
Tensor& logit_out(Tensor& out, const Tensor& x, std::optional<double> eps = {});
// Whether the sign bit is set (-0.0 and -nan included); bool result.
Tensor signbit(const Tensor& x);
Tensor& signbit_out(Tensor& out, const Tensor& x);
// sum / mean treating NaN as 0 / as absent; dims as sum's (empty: all).
Tensor nansum(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor& nansum_out(Tensor& out, const Tensor& x, IntArrayRef dims = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = {});
Tensor nanmean(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor& nanmean_out(Tensor& out, const Tensor& x, IntArrayRef dims = {}, bool keepdim = false,
                    std::optional<ScalarType> dtype = {});
// log(cumsum(exp(x))) along dim, computed stably.
Tensor logcumsumexp(const Tensor& x, int64_t dim);
Tensor& logcumsumexp_out(Tensor& out, const Tensor& x, int64_t dim);
// The n-th forward difference along dim, after prepend/append are concatenated there (xor for bool).
Tensor diff(const Tensor& x, int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = {},
            const std::optional<Tensor>& append = {});
Tensor& diff_out(Tensor& out, const Tensor& x, int64_t n = 1, int64_t dim = -1,
                 const std::optional<Tensor>& prepend = {}, const std::optional<Tensor>& append = {});
// Cross product of 3-vectors along dim (torch.cross: none is the first dim of size 3, with torch's warning).
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim = {});
Tensor& cross_out(Tensor& out, const Tensor& a, const Tensor& b, std::optional<int64_t> dim = {});
Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
Tensor& linalg_cross_out(Tensor& out, const Tensor& a, const Tensor& b, int64_t dim = -1);
// Kronecker product.
Tensor kron(const Tensor& a, const Tensor& b);
Tensor& kron_out(Tensor& out, const Tensor& a, const Tensor& b);
// Sum of products over dims_a of a and dims_b of b (pairwise), as one matrix product; or over a's last `dims`
// dims and b's first `dims`.
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);
Tensor& tensordot_out(Tensor& out, const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
// p-norm of a - b.
Tensor dist(const Tensor& a, const Tensor& b, double p = 2);
// p-norm distances between the rows of x1 (.., R1, M) and x2 (.., R2, M): (.., R1, R2). compute_mode: 0 uses a
// matrix product for p = 2 when R1 or R2 > 25, 1 always, 2 never.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2, std::optional<int64_t> compute_mode = {});

// torch.linalg norms. dims none: all (vector_norm); ord as torch's (inf, -inf, 0, any p).
Tensor linalg_vector_norm(const Tensor& x, double ord = 2, OptionalIntArrayRef dims = {}, bool keepdim = false,
                          std::optional<ScalarType> dtype = {});
// ord: 1, -1, inf, -inf, 2, -2 (largest / smallest singular value), or "fro", "nuc" (sum of singular values).
Tensor linalg_matrix_norm(const Tensor& a, double ord, IntArrayRef dims = {-2, -1}, bool keepdim = false,
                          std::optional<ScalarType> dtype = {});
Tensor linalg_matrix_norm(const Tensor& a, std::string_view ord = "fro", IntArrayRef dims = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = {});
// linalg.norm: a vector norm, or a matrix norm when ord is given with two dims (or a 2-D input and no dims).
Tensor linalg_norm(const Tensor& a, std::optional<double> ord = {}, OptionalIntArrayRef dims = {},
                   bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor linalg_norm(const Tensor& a, std::string_view ord, OptionalIntArrayRef dims = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = {});

// torch.linalg.svd: (U, S, Vh) with A = U diag(S) Vh for each matrix of A's batch, S descending; U and Vh square when
// full_matrices, else k = min(m, n) columns / rows. U and Vh are column-major, as torch's (LAPACK's) are.
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices = true);
Tensor linalg_svdvals(const Tensor& a);
// torch.svd: (U, S, V = Vh transposed), reduced when some; without compute_uv, U and V are full-size zeros.
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool some = true, bool compute_uv = true);

}  // namespace ember

// The singular value decomposition (linalg.svd, linalg.svdvals, torch.svd) and the matrix norms built on it.
#include "../core/autocast_policy.h"
#include <algorithm>

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/math_ops.h"
#include "ember/reduce.h"
#include "linalg_svd.h"

namespace ember {

namespace {

struct Decomposition {
  Tensor U, S, Vh;  // U and Vh undefined when only the values were computed
};

Decomposition decompose(const Tensor& a, bool full, bool vectors) {
  EMBER_CHECK(a.dim() >= 2, Error, "linalg.svd: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(a.is_floating_point(), Error, "linalg.svd: Expected a floating point or complex tensor as input. Got ",
              legacy_name(a.dtype()));
  const int64_t m = a.sizes()[a.dim() - 2], n = a.sizes()[a.dim() - 1], k = std::min(m, n);
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  auto shape = [&](std::initializer_list<int64_t> tail) {  // A's batch dims, then `tail`
    DimVector s(IntArrayRef(a.sizes().data(), size_t(a.dim() - 2)));
    for (int64_t d : tail) s.push_back(d);
    return s;
  };
  Decomposition d;
  d.S = empty(shape({k}), a.options());
  Tensor u_cols = vectors ? empty(shape({ucols, m}), a.options()) : Tensor();  // U and Vh stored transposed
  Tensor v_cols = vectors ? empty(shape({n, vrows}), a.options()) : Tensor();
  if (a.numel() > 0) {
    EMBER_CHECK(a.dtype() == kFloat32 || a.dtype() == kFloat64, NotImplementedError, "\"linalg_svd_",
                device_type_name(a.device().type), "\" not implemented for '", legacy_name(a.dtype()), "'");
    Tensor a_cols = a.detach().transpose(-2, -1).clone(MemoryFormat::Contiguous);  // LAPACK overwrites it
    auto flat = [](const Tensor& t, int64_t r, int64_t c) { return t.defined() ? t.view({-1, r, c}) : Tensor(); };
    kernels::svd[a.device()](a_cols.view({-1, n, m}), d.S.view({-1, k}), flat(u_cols, ucols, m),
                             flat(v_cols, n, vrows), full);
  } else if (vectors && full) {  // no singular values: the full factors are identities
    u_cols.copy_(eye(m, std::nullopt, a.options()));
    v_cols.copy_(eye(n, std::nullopt, a.options()));
  }
  if (vectors) {
    d.U = u_cols.transpose(-2, -1);
    d.Vh = v_cols.transpose(-2, -1);
  }
  return d;
}

// The decomposition, recorded for autograd when a needs it (then U and Vh are computed even for the values only).
Decomposition svd_recorded(const Tensor& a, bool full, bool vectors) {
  const bool grad = autograd::needs_grad({&a});
  Decomposition d = decompose(a, full, vectors || grad);
  if (grad) autograd::record_svd(d.U, d.S, d.Vh, a);
  return d;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices) {
  EMBER_AUTOCAST(fp32, kCPU, linalg_svd, a, full_matrices);
  Decomposition d = svd_recorded(a, full_matrices, true);
  return {d.U, d.S, d.Vh};
}

Tensor linalg_svdvals(const Tensor& a) {
  EMBER_AUTOCAST(fp32, kCPU, linalg_svdvals, a);
  return svd_recorded(a, false, false).S;
}

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool some, bool compute_uv) {
  EMBER_AUTOCAST(fp32, kCPU, svd, a, some, compute_uv);
  if (compute_uv) {
    Decomposition d = svd_recorded(a, !some, true);
    return {d.U, d.S, d.Vh.transpose(-2, -1)};
  }
  Tensor s = linalg_svdvals(a);
  DimVector u_shape(a.sizes()), v_shape(a.sizes());
  u_shape.back() = u_shape[u_shape.size() - 2];
  v_shape[v_shape.size() - 2] = v_shape.back();
  return {zeros(u_shape, a.options()), s, zeros(v_shape, a.options()).transpose(-2, -1)};  // torch's V: column-major
}

Tensor singular_value_norm(const Tensor& a, SingularValueNorm which, int64_t d0, int64_t d1, bool keepdim) {
  Tensor s = linalg_svdvals(a.movedim({d0, d1}, {-2, -1}));
  Tensor r = which == SingularValueNorm::Nuclear ? sum(s, {-1})
             : which == SingularValueNorm::Largest ? amax(s, {-1}) : amin(s, {-1});
  if (!keepdim) return r;
  // Back to A's rank: size-1 dims appended, then moved to d0 and d1 (torch's PermuteBackward0 on top).
  return r.unsqueeze(-1).unsqueeze(-1).movedim({-2, -1}, {d0, d1});
}

}  // namespace ember

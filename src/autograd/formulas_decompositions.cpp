// Derivatives of the matrix factorizations (formulas_decompositions.h), for real matrices, as torch's. Each is
// written with differentiable ops, so second derivatives follow.
#include "formulas_decompositions.h"

#include <array>

#include "ember/creation.h"
#include "ember/decompositions.h"
#include "ember/linalg.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/shape_utils.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

namespace {

Tensor as_matrix_scale(const Tensor& t) { return t.unsqueeze(-1).unsqueeze(-1); }
Tensor or_zeros(const Tensor& g, const Tensor& like) { return g.defined() ? g : zeros_like(like); }

// The cofactor matrix of each A (the gradient of det), through the SVD, so singular matrices have one too:
// A = U S Vh gives cof(A) = det(U) det(Vh) U diag(prod_{j != i} s_j) Vh.
Tensor cofactors(const Tensor& a) {
  auto [u, s, vh] = linalg_svd(a, false);
  const int64_t n = s.sizes().back();
  Tensor others = s.unsqueeze(-2).expand(a.sizes());  // row i: every s_j
  Tensor without_own = where(eye(n, std::nullopt, a.options().dtype(kBool)), wrapped_scalar(1.0), others);
  Tensor scale = prod(without_own, {-1});
  Tensor sign = mul(linalg_det(u), linalg_det(vh));
  return mul(matmul(mul(u, scale.unsqueeze(-2)), vh), as_matrix_scale(sign));
}

// tril(M, -1) + tril(M, -1)^T + diag(M): the symmetric matrix sharing M's lower triangle.
Tensor copy_lower_to_upper(const Tensor& m) {
  Tensor below = tril(m, -1);
  return add(add(below, below.mT()), diag_embed(m.diagonal(0, -2, -1)));
}

// gA of A = Q R for m >= n (R square, invertible): [gQ + Q copyltu(R gR^T - gQ^T Q)] R^-T.
Tensor qr_backward_tall(const Tensor& gq, const Tensor& gr, const Tensor& q, const Tensor& r) {
  Tensor m = sub(matmul(r, gr.mT()), matmul(gq.mT(), q));
  Tensor b = add(gq, matmul(q, copy_lower_to_upper(m)));
  return linalg_solve_triangular(r.mT(), b, false, false);
}

}  // namespace

void record_inverse(const Tensor& x, const Tensor& a) {
  record("LinalgInvExBackward0", x, {&a}, {&x}, [](const BackwardContext& c) {
    Tensor xt = c.saved[0].mT();
    return TensorList{neg(matmul(matmul(xt, c.grads[0]), xt))};
  });
}

void record_det(const Tensor& d, const Tensor& a) {
  record("LinalgDetBackward0", d, {&a}, {&a, &d}, [](const BackwardContext& c) {
    const Tensor &a = c.saved[0], &d = c.saved[1], &g = c.grads[0];
    // g det(A) A^-T where every A is invertible; the cofactors (also defined for singular A) otherwise
    if (d.numel() == 0 || all(ne(d, wrapped_scalar(0))).item().to_bool()) {
      return TensorList{mul(as_matrix_scale(mul(g, d)), linalg_inv(a).mT())};
    }
    return TensorList{mul(as_matrix_scale(g), cofactors(a))};
  });
}

void record_slogdet(const Tensor& sign, const Tensor& logabsdet, const Tensor& a) {
  record_multi("LinalgSlogdetBackward0", {sign, logabsdet}, {&a}, {&a}, [](const BackwardContext& c) {
    const Tensor& a = c.saved[0];
    if (!c.grads[1].defined()) return TensorList{zeros_like(a)};  // sign is piecewise constant
    // a singular A gives infinities here, not an error (torch solves with the forward's LU, unchecked)
    return TensorList{mul(as_matrix_scale(c.grads[1]), std::get<0>(linalg_inv_ex(a)).mT())};
  });
}

void record_solve(const Tensor& x, const Tensor& a, const Tensor& b, bool vector, bool left) {
  DimVector a_sizes(a.sizes()), b_sizes(b.sizes());
  record("LinalgSolveExBackward0", x, {&a, &b}, {&a, &x}, [=](const BackwardContext& c) {
    const Tensor &a = c.saved[0], &x = c.saved[1];
    // left: gB = A^-T g, gA = -gB X^T; right (X = B A^-1): gB = g A^-T, gA = -X^T gB
    Tensor gb = linalg_solve(a.mT(), c.grads[0], left);
    Tensor ga;
    if (c.needs(0)) {
      ga = vector ? mul(gb.unsqueeze(-1), x.unsqueeze(-2)) : left ? matmul(gb, x.mT()) : matmul(x.mT(), gb);
      ga = sum_to(neg(ga), a_sizes);
    }
    return TensorList{ga, c.needs(1) ? sum_to(gb, b_sizes) : Tensor()};
  });
}

void record_solve_triangular(const Tensor& x, const Tensor& a, const Tensor& b, bool upper, bool left,
                             bool unitriangular) {
  DimVector a_sizes(a.sizes()), b_sizes(b.sizes());
  record("LinalgSolveTriangularBackward0", x, {&a, &b}, {&a, &x}, [=](const BackwardContext& c) {
    const Tensor &a = c.saved[0], &x = c.saved[1];
    Tensor gb = linalg_solve_triangular(a.mT(), c.grads[0], !upper, left, unitriangular);
    Tensor ga;
    if (c.needs(0)) {  // as solve's, on A's triangle (strict for a unit diagonal, which is not read)
      Tensor full = neg(left ? matmul(gb, x.mT()) : matmul(x.mT(), gb));
      ga = upper ? triu(full, unitriangular ? 1 : 0) : tril(full, unitriangular ? -1 : 0);
      ga = sum_to(ga, a_sizes);
    }
    return TensorList{ga, c.needs(1) ? sum_to(gb, b_sizes) : Tensor()};
  });
}

void record_cholesky(const Tensor& factor, const Tensor& a, bool upper) {
  record("LinalgCholeskyExBackward0", factor, {&a}, {&factor}, [upper](const BackwardContext& c) {
    // With A = L L^T: gA = L^-T Phi(L^T gL) L^-1, symmetrized, Phi taking the lower triangle with half its diagonal
    Tensor l = upper ? c.saved[0].mT() : c.saved[0];
    Tensor gl = upper ? c.grads[0].mT() : c.grads[0];
    Tensor phi = tril(matmul(l.mT(), gl));
    phi = sub(phi, mul(diag_embed(phi.diagonal(0, -2, -1)), wrapped_scalar(0.5)));
    Tensor left = linalg_solve_triangular(l.mT(), phi, true);
    Tensor ga = linalg_solve_triangular(l, left, false, false);
    return TensorList{mul(add(ga, ga.mT()), wrapped_scalar(0.5))};
  });
}

void record_qr(const Tensor& q, const Tensor& r, const Tensor& a, std::string_view mode) {
  const bool r_only = mode == "r", complete = mode == "complete";
  record_multi("LinalgQrBackward0", {q, r}, {&a}, {&q, &r}, [r_only, complete](const BackwardContext& c) {
    EMBER_CHECK(!r_only, Error, "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
    const Tensor &q = c.saved[0], &r = c.saved[1];
    const int64_t m = q.sizes()[q.dim() - 2], n = r.sizes().back();
    EMBER_CHECK(!complete || m <= n, Error,
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
    Tensor gq = or_zeros(c.grads[0], q), gr = or_zeros(c.grads[1], r);
    if (m >= n) return TensorList{qr_backward_tall(gq, gr, q, r)};
    // A = [X | Y] with X = Q R1 square and Y = Q R2: Y's gradient is Q gR2, and it adds Y gR2^T to gQ
    Tensor r1 = r.narrow(-1, 0, m), r2 = r.narrow(-1, m, n - m);
    Tensor gr1 = gr.narrow(-1, 0, m), gr2 = gr.narrow(-1, m, n - m);
    Tensor y = matmul(q, r2);
    Tensor gx = qr_backward_tall(add(gq, matmul(y, gr2.mT())), gr1, q, r1);
    const std::array parts{gx, matmul(q, gr2)};
    return TensorList{cat(parts, -1)};
  });
}

void record_pinv(const Tensor& p, const Tensor& a) {
  record("LinalgPinvBackward0", p, {&a}, {&a, &p}, [](const BackwardContext& c) {
    // From dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P (A of full rank):
    //   gA = -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)
    const Tensor &a = c.saved[0], &p = c.saved[1], &g = c.grads[0];
    Tensor pt = p.mT(), gt = g.mT();
    Tensor left_null = sub(gt, matmul(a, matmul(p, gt)));    // (I - A P) G^T
    Tensor right_null = sub(gt, matmul(matmul(gt, p), a));   // G^T (I - P A)
    Tensor ga = neg(matmul(matmul(pt, g), pt));
    ga = add(ga, matmul(left_null, matmul(p, pt)));
    return TensorList{add(ga, matmul(matmul(pt, p), right_null))};
  });
}

void record_eigh(const Tensor& w, const Tensor& v, const Tensor& a) {
  record_multi("LinalgEighBackward0", {w, v}, {&a}, {&w, &v}, [](const BackwardContext& c) {
    const Tensor &w = c.saved[0], &v = c.saved[1];
    // gA = V (diag(gw) + skew(V^T gV) / E) V^T with E_ij = w_j - w_i off the diagonal
    Tensor inner = c.grads[0].defined() ? diag_embed(c.grads[0]) : zeros_like(v);
    if (c.grads[1].defined()) {
      Tensor vt_gv = matmul(v.mT(), c.grads[1]);
      Tensor skew = mul(sub(vt_gv, vt_gv.mT()), wrapped_scalar(0.5));
      Tensor gaps = sub(w.unsqueeze(-2), w.unsqueeze(-1));
      Tensor off_diagonal = logical_not(eye(w.sizes().back(), std::nullopt, w.options().dtype(kBool)));
      inner = add(inner, where(off_diagonal, div(skew, gaps), wrapped_scalar(0.0)));
    }
    return TensorList{matmul(matmul(v, inner), v.mT())};
  });
}

void record_eigvalsh(const Tensor& w, const Tensor& v, const Tensor& a) {
  record("LinalgEighBackward0", w, {&a}, {&v}, [](const BackwardContext& c) {
    const Tensor& v = c.saved[0];
    return TensorList{matmul(mul(v, c.grads[0].unsqueeze(-2)), v.mT())};
  });
}

}  // namespace ember::autograd

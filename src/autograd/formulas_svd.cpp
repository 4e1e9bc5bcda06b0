// The SVD's gradient (LinalgSvdBackward0), for real matrices, as torch's linalg_svd_backward: Townsend's formula.
#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/shape_utils.h"
#include "formulas.h"

namespace ember::autograd {

// With A = U S Vh (k singular values) and F_ij = 1 / (s_j^2 - s_i^2) off the diagonal:
//   gA = U [diag(gS) + (F o (U^T gU - gU^T U)) S + S (F o (Vh gV - gV^T V))] Vh
//        + (I - U U^T) gU S^-1 Vh + U S^-1 gVh (I - V Vh)
// The last two terms vanish for square matrices. Full U / Vh contribute only through their first k vectors.
void record_svd(const Tensor& U, const Tensor& S, const Tensor& Vh, const Tensor& a) {
  record_multi("LinalgSvdBackward0", {U, S, Vh}, {&a}, {&U, &S, &Vh}, [](const BackwardContext& c) {
    const Tensor& s = c.saved[1];
    const int64_t k = s.sizes().back();
    Tensor u = c.saved[0].narrow(-1, 0, k), vh = c.saved[2].narrow(-2, 0, k);
    Tensor g_u = c.grads[0].defined() ? c.grads[0].narrow(-1, 0, k) : Tensor();
    Tensor g_vh = c.grads[2].defined() ? c.grads[2].narrow(-2, 0, k) : Tensor();
    Tensor inner = c.grads[1].defined() ? diag_embed(c.grads[1]) : zeros_like(diag_embed(s));
    if (g_u.defined() || g_vh.defined()) {
      Tensor s2 = mul(s, s);
      Tensor f = reciprocal(sub(s2.unsqueeze(-2), s2.unsqueeze(-1)));
      f.diagonal(0, -2, -1).zero_();
      if (g_u.defined()) {
        Tensor ut_gu = matmul(u.transpose(-2, -1), g_u);
        inner = add(inner, mul(mul(f, sub(ut_gu, ut_gu.transpose(-2, -1))), s.unsqueeze(-2)));
      }
      if (g_vh.defined()) {
        Tensor vh_gv = matmul(vh, g_vh.transpose(-2, -1));
        inner = add(inner, mul(s.unsqueeze(-1), mul(f, sub(vh_gv, vh_gv.transpose(-2, -1)))));
      }
    }
    Tensor g_a = matmul(matmul(u, inner), vh);
    if (g_u.defined() && u.sizes()[u.dim() - 2] > k) {
      Tensor outside = sub(g_u, matmul(u, matmul(u.transpose(-2, -1), g_u)));
      g_a = add(g_a, matmul(div(outside, s.unsqueeze(-2)), vh));
    }
    if (g_vh.defined() && vh.sizes().back() > k) {
      Tensor outside = sub(g_vh, matmul(matmul(g_vh, vh.transpose(-2, -1)), vh));
      g_a = add(g_a, matmul(u, div(outside, s.unsqueeze(-1))));
    }
    return TensorList{g_a};
  });
}

}  // namespace ember::autograd

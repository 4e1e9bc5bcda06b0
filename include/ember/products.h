// Products beside the matmul family (src/ops/products.cpp): inner of any ranks, vdot, addr, addbmm, and the
// in-place forms of addmm, addmv, baddbmm, addr and addbmm.
#pragma once
#include "ember/tensor.h"

namespace ember {

// Sum of products over the last dims (equal sizes); a 0-dim operand multiplies, as torch.inner.
Tensor inner(const Tensor& a, const Tensor& b);
// dot of two vectors (real: no conjugation), recorded as VdotBackward0.
Tensor vdot(const Tensor& a, const Tensor& b);
// beta * input + alpha * outer(vec1, vec2); beta 0 ignores input (its NaNs too). bool: logical or/and.
Tensor addr(const Tensor& input, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1, const Scalar& alpha = 1);
// beta * input + alpha * the sum over the batch of batch1[i] @ batch2[i].
Tensor addbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
              const Scalar& alpha = 1);
// In place on self (its dtype and shape kept).
Tensor& addmm_(Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& addmv_(Tensor& self, const Tensor& m, const Tensor& v, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& baddbmm_(Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& addr_(Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& addbmm_(Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1);
// out= forms (src/ops/out_forms.cpp): inner, vdot and addbmm need out of the result's dtype; addr's casts to out's.
Tensor& inner_out(Tensor& out, const Tensor& a, const Tensor& b);
Tensor& vdot_out(Tensor& out, const Tensor& a, const Tensor& b);
Tensor& addr_out(Tensor& out, const Tensor& input, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
                 const Scalar& alpha = 1);
Tensor& addbmm_out(Tensor& out, const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1,
                   const Scalar& alpha = 1);

}  // namespace ember

// The matmul family: matmul (every torch case), mm, bmm, mv, dot, outer, addmm, addmv, baddbmm.
#pragma once
#include "ember/tensor.h"

namespace ember {

Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& m, const Tensor& v);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);
// beta * input + alpha * (m1 @ m2), input broadcast to the product's shape.
Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor addmv(const Tensor& input, const Tensor& m, const Tensor& v, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1, const Scalar& alpha = 1);

// out= forms (src/ops/out_forms.cpp): out must have the product's dtype (outer's result casts to out's), as torch.
Tensor& matmul_out(Tensor& out, const Tensor& a, const Tensor& b);
Tensor& mm_out(Tensor& out, const Tensor& a, const Tensor& b);
Tensor& bmm_out(Tensor& out, const Tensor& a, const Tensor& b);
Tensor& mv_out(Tensor& out, const Tensor& m, const Tensor& v);
Tensor& dot_out(Tensor& out, const Tensor& a, const Tensor& b);
Tensor& outer_out(Tensor& out, const Tensor& a, const Tensor& b);
Tensor& addmm_out(Tensor& out, const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta = 1,
                  const Scalar& alpha = 1);
Tensor& addmv_out(Tensor& out, const Tensor& input, const Tensor& m, const Tensor& v, const Scalar& beta = 1,
                  const Scalar& alpha = 1);
Tensor& baddbmm_out(Tensor& out, const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1,
                    const Scalar& alpha = 1);

}  // namespace ember

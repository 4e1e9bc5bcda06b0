// Derivatives of vdot, addr and addbmm (broadcast gradients of input are summed back by the engine).
#include "formulas_products.h"

#include "ember/linalg.h"
#include "ember/ops.h"
#include "formulas.h"

namespace ember::autograd {

void record_vdot(const Tensor& r, const Tensor& a, const Tensor& b) {
  record("VdotBackward0", r, {&a, &b}, {&a, &b}, [](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    return TensorList{c.needs(0) ? mul(g, c.saved[1]) : Tensor(), c.needs(1) ? mul(g, c.saved[0]) : Tensor()};
  });
}

void record_addr(const Tensor& r, const Tensor& input, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                 const Scalar& alpha) {
  record("AddrBackward0", r, {&input, &vec1, &vec2}, {&vec1, &vec2}, [beta, alpha](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &v1 = c.saved[0], &v2 = c.saved[1];
    return TensorList{c.needs(0) ? scaled(g, beta) : Tensor(), c.needs(1) ? scaled(mv(g, v2), alpha) : Tensor(),
                      c.needs(2) ? scaled(mv(g.t(), v1), alpha) : Tensor()};
  });
}

void record_addbmm(const Tensor& r, const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                   const Scalar& alpha) {
  record("AddbmmBackward0", r, {&input, &b1, &b2}, {&b1, &b2}, [beta, alpha](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &b1 = c.saved[0], &b2 = c.saved[1];
    Tensor each = g.unsqueeze(0).expand({b1.size(0), g.size(0), g.size(1)});  // every batch gets g
    return TensorList{c.needs(0) ? scaled(g, beta) : Tensor(),
                      c.needs(1) ? scaled(bmm(each, b2.transpose(1, 2)), alpha) : Tensor(),
                      c.needs(2) ? scaled(bmm(b1.transpose(1, 2), each), alpha) : Tensor()};
  });
}

}  // namespace ember::autograd

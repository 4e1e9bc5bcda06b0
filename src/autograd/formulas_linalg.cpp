// Derivatives of the matmul family, where, and joining.
#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "formulas.h"

namespace ember::autograd {

namespace {

// torch's layout rule for matrix-product gradients: an operand that is exactly a transposed contiguous matrix
// (a weight used as W.t()) gets its gradient in that layout, so the weight's own gradient comes out contiguous
// and is accumulated without a copy.
bool column_major(const Tensor& m) { return m.strides()[0] == 1 && m.strides()[1] == m.sizes()[0]; }

Tensor mat1_grad(const Tensor& g, const Tensor& m1, const Tensor& m2) {
  return column_major(m1) ? mm(m2, g.t()).t() : mm(g, m2.t());
}

Tensor mat2_grad(const Tensor& g, const Tensor& m1, const Tensor& m2) {
  return column_major(m2) ? mm(g.t(), m1).t() : mm(m1.t(), g);
}

}  // namespace

void record_mm(const Tensor& r, const Tensor& a, const Tensor& b) {
  record("MmBackward0", r, {&a, &b}, {&a, &b}, [](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    const Tensor &m1 = c.saved[0], &m2 = c.saved[1];
    return TensorList{c.needs(0) ? mat1_grad(g, m1, m2) : Tensor(), c.needs(1) ? mat2_grad(g, m1, m2) : Tensor()};
  });
}

void record_bmm(const Tensor& r, const Tensor& a, const Tensor& b) {
  record("BmmBackward0", r, {&a, &b}, {&a, &b}, [](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    return TensorList{c.needs(0) ? bmm(g, c.saved[1].mT()) : Tensor(), c.needs(1) ? bmm(c.saved[0].mT(), g) : Tensor()};
  });
}

void record_mv(const Tensor& r, const Tensor& m, const Tensor& v) {
  record("MvBackward0", r, {&m, &v}, {&m, &v}, [](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    return TensorList{c.needs(0) ? mul(g.unsqueeze(1), c.saved[1].unsqueeze(0)) : Tensor(),
                      c.needs(1) ? mv(c.saved[0].t(), g) : Tensor()};
  });
}

void record_dot(const Tensor& r, const Tensor& a, const Tensor& b) {
  record("DotBackward0", r, {&a, &b}, {&a, &b}, [](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    return TensorList{c.needs(0) ? mul(g, c.saved[1]) : Tensor(), c.needs(1) ? mul(g, c.saved[0]) : Tensor()};
  });
}

void record_addmm(const Tensor& r, const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                  const Scalar& alpha) {
  record("AddmmBackward0", r, {&input, &m1, &m2}, {&m1, &m2}, [beta, alpha](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    const Tensor &m1 = c.saved[0], &m2 = c.saved[1];
    return TensorList{c.needs(0) ? scaled(g, beta) : Tensor(), c.needs(1) ? scaled(mat1_grad(g, m1, m2), alpha) : Tensor(),
                      c.needs(2) ? scaled(mat2_grad(g, m1, m2), alpha) : Tensor()};
  });
}

void record_addmv(const Tensor& r, const Tensor& input, const Tensor& m, const Tensor& v, const Scalar& beta,
                  const Scalar& alpha) {
  record("AddmvBackward0", r, {&input, &m, &v}, {&m, &v}, [beta, alpha](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    auto scaled = [](const Tensor& t, const Scalar& s) { return s.to_double() == 1.0 ? t : t * s; };
    return TensorList{c.needs(0) ? scaled(g, beta) : Tensor(),
                      c.needs(1) ? scaled(mul(g.unsqueeze(1), c.saved[1].unsqueeze(0)), alpha) : Tensor(),
                      c.needs(2) ? scaled(mv(c.saved[0].t(), g), alpha) : Tensor()};
  });
}

void record_baddbmm(const Tensor& r, const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                    const Scalar& alpha) {
  DimVector input_sizes(input.sizes());
  record("BaddbmmBackward0", r, {&input, &b1, &b2}, {&b1, &b2}, [beta, alpha, input_sizes](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    auto scaled = [](const Tensor& t, const Scalar& s) { return s.to_double() == 1.0 ? t : t * s; };
    return TensorList{c.needs(0) ? sum_to(scaled(g, beta), input_sizes) : Tensor(),
                      c.needs(1) ? scaled(bmm(g, c.saved[1].transpose(1, 2)), alpha) : Tensor(),
                      c.needs(2) ? scaled(bmm(c.saved[0].transpose(1, 2), g), alpha) : Tensor()};
  });
}

}  // namespace ember::autograd

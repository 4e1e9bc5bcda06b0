// Derivatives of the matmul family, where, and joining.
#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "formulas.h"

namespace ember::autograd {

void record_mm(const Tensor& r, const Tensor& a, const Tensor& b) {
  record("MmBackward0", r, {&a, &b}, {&a, &b}, [](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    return TensorList{c.needs(0) ? mm(g, c.saved[1].t()) : Tensor(), c.needs(1) ? mm(c.saved[0].t(), g) : Tensor()};
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
    auto scaled = [](const Tensor& t, const Scalar& s) { return s.to_double() == 1.0 ? t : t * s; };
    return TensorList{c.needs(0) ? scaled(g, beta) : Tensor(), c.needs(1) ? scaled(mm(g, c.saved[1].t()), alpha) : Tensor(),
                      c.needs(2) ? scaled(mm(c.saved[0].t(), g), alpha) : Tensor()};
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

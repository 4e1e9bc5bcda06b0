// Derivatives of the ops of ember/products.h (src/autograd/formulas_products.cpp).
#pragma once
#include "function.h"

namespace ember::autograd {

void record_vdot(const Tensor& result, const Tensor& a, const Tensor& b);
void record_addr(const Tensor& result, const Tensor& input, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                 const Scalar& alpha);
void record_addbmm(const Tensor& result, const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                   const Scalar& alpha);

}  // namespace ember::autograd

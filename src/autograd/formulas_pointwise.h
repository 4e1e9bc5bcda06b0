// Derivatives of the ops of ember/pointwise.h and aminmax (src/autograd/formulas_pointwise.cpp).
#pragma once
#include "function.h"

namespace ember::autograd {

// addcmul (divide false) / addcdiv: AddcmulBackward0 / AddcdivBackward0.
void record_addc(bool divide, const Tensor& result, const Tensor& self, const Tensor& t1, const Tensor& t2,
                 const Scalar& value);
// clamp_min / clamp_max: ClampMinBackward0 (a number bound, one edge) or ClampMinBackward1 (a tensor bound).
void record_clamp_one(bool is_min, const Tensor& result, const Tensor& x, const Tensor& bound);
// frexp's mantissa: FrexpBackward0, the gradient g / 2^exponent.
void record_frexp(const Tensor& mantissa, const Tensor& exponent, const Tensor& x);
void record_ldexp(const Tensor& result, const Tensor& x, const Tensor& other);
// aminmax's two outputs: the gradient of each split evenly among its tied extremes (dim none: every dim).
void record_aminmax(const Tensor& min, const Tensor& max, const Tensor& x, std::optional<int64_t> dim, bool keepdim);

}  // namespace ember::autograd

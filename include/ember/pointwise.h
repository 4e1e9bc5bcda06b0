// Pointwise ops composed from the elementwise tables (src/ops/pointwise.cpp): addcmul/addcdiv, one-sided clamps,
// heaviside, ldexp, float_power and the infinity tests. Their gradients: src/autograd/formulas_pointwise.cpp.
#pragma once
#include <optional>

#include "ember/tensor.h"

namespace ember {

// self + value * t1 * t2 (addcdiv: t1 / t2) in the promoted dtype; float16/bfloat16 compute in float32, rounded
// once. addcdiv refuses two integer (or bool) tensors, as torch.
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor& addcmul_out(Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor& addcdiv_out(Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
// max(x, min) / min(x, max) as clamp with one bound; a wrapped-number bound is torch's Scalar overload.
Tensor clamp_min(const Tensor& x, const Tensor& min);
Tensor clamp_max(const Tensor& x, const Tensor& max);
Tensor& clamp_min_(Tensor& x, const Tensor& min);
Tensor& clamp_max_(Tensor& x, const Tensor& max);
// 0 where x < 0, values where x == 0, 1 where x > 0 (x and values of one dtype); not differentiable.
Tensor heaviside(const Tensor& x, const Tensor& values);
Tensor& heaviside_out(Tensor& out, const Tensor& x, const Tensor& values);
// x * 2^other (integers compute in the default float dtype).
Tensor ldexp(const Tensor& x, const Tensor& other);
Tensor& ldexp_out(Tensor& out, const Tensor& x, const Tensor& other);
// pow in float64 (both operands converted first).
Tensor float_power(const Tensor& x, const Tensor& exponent);
Tensor& float_power_out(Tensor& out, const Tensor& x, const Tensor& exponent);
// In-place forms of composites: the result (of x's dtype for cumsum_/cumprod_, as torch) written back into x.
Tensor& cumsum_(Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor& cumprod_(Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor& logical_not_(Tensor& x);
Tensor& nan_to_num_(Tensor& x, double nan = 0.0, std::optional<double> posinf = {}, std::optional<double> neginf = {});
// Whether x is -inf / +inf (false for integers and bool).
Tensor isneginf(const Tensor& x);
Tensor isposinf(const Tensor& x);

}  // namespace ember

// Tensor methods of ember/pointwise.h, lerp_ and aminmax: each calls its free function.
#include "ember/ember.h"

namespace ember {

Tensor& Tensor::lerp_(const Tensor& end, const Tensor& weight) { return ember::lerp_(*this, end, weight); }
Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcmul(*this, t1, t2, value);
}
Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return ember::addcmul_out(*this, *this, t1, t2, value);
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcdiv(*this, t1, t2, value);
}
Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return ember::addcdiv_out(*this, *this, t1, t2, value);
}
Tensor Tensor::clamp_min(const Tensor& min) const { return ember::clamp_min(*this, min); }
Tensor Tensor::clamp_max(const Tensor& max) const { return ember::clamp_max(*this, max); }
Tensor& Tensor::clamp_min_(const Tensor& min) { return ember::clamp_min_(*this, min); }
Tensor& Tensor::clamp_max_(const Tensor& max) { return ember::clamp_max_(*this, max); }
Tensor Tensor::heaviside(const Tensor& values) const { return ember::heaviside(*this, values); }
Tensor Tensor::ldexp(const Tensor& other) const { return ember::ldexp(*this, other); }
Tensor Tensor::float_power(const Tensor& exponent) const { return ember::float_power(*this, exponent); }
Tensor Tensor::isneginf() const { return ember::isneginf(*this); }
Tensor Tensor::isposinf() const { return ember::isposinf(*this); }
std::pair<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::aminmax(*this, dim, keepdim);
}

}  // namespace ember

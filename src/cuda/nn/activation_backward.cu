// kernels::activation_backward on CUDA: grad_input = f(grad, s) per activation, the CPU kernel's arithmetic
// (src/cpu/unary/nn_activation.cpp) and NaN rules in Compute<T>, rounded back to T.
#include <cmath>

#include "activation.cuh"

namespace ember::cuda_backend {

namespace {

template <typename T, Activation Op>
struct Backward {
  using C = functors::Compute<T>;
  C a, b, c;
  bool from_result;  // s is the forward's result (elu's in-place form)

  __device__ T operator()(T grad, T saved) const {
    using A = Activation;
    const C g = C(grad), s = C(saved);
    C r;
    if constexpr (Op == A::LeakyRelu) {
      r = s > C(0) ? g : g * a;
    } else if constexpr (Op == A::Elu) {  // NaN takes the negative branch
      if (from_result) r = s > C(0) ? g * b : g * c * (s + a * b);
      else r = s > C(0) ? g * b : g * c * (a * b) * std::exp(s * c);
    } else if constexpr (Op == A::Hardtanh) {
      r = s > a && s < b ? g : C(0);
    } else if constexpr (Op == A::Hardswish) {
      r = s <= C(-3) ? C(0) : (s >= C(3) ? g : g * (s / C(3) + C(0.5)));
    } else if constexpr (Op == A::Hardsigmoid) {  // times the float 1/6, also for double (as the CPU)
      r = s > C(-3) && s < C(3) ? g * C(1.0f / 6.0f) : C(0);
    } else if constexpr (Op == A::Threshold) {
      r = s <= a ? C(0) : g;
    } else if constexpr (Op == A::Mish) {
      C t = std::tanh(std::log1p(std::exp(s)));
      C sig = C(1) / (C(1) + std::exp(-s));
      r = g * (t + s * sig * (C(1) - t * t));
    } else if constexpr (Op == A::LogSigmoid) {
      C z = std::exp(-std::abs(s));
      r = s < C(0) ? g * (C(1) - z / (C(1) + z)) : g * (z / (C(1) + z));
    } else if constexpr (Op == A::Softshrink || Op == A::Hardshrink) {
      r = s > C(T(a)) || s < -C(T(a)) ? g : C(0);  // lambd rounded to T, as torch's
    } else if constexpr (Op == A::GeluErf) {
      C cdf = C(0.5) * (C(1) + std::erf(s * C(kSqrt1_2)));
      C pdf = std::exp(C(-0.5) * s * s) * C(kTwoOverSqrtPi * kSqrt1_2 * 0.5);
      r = g * (cdf + s * pdf);
    } else if constexpr (Op == A::Silu) {
      C sig = C(1) / (C(1) + std::exp(-s));
      r = g * sig * (C(1) + s * (C(1) - sig));
    } else {
      C s2 = s * s;
      C t = std::tanh(C(kSqrt2OverPi) * s * (C(1) + C(kCubic) * s2));
      C inner = C(kSqrt2OverPi) * (C(1) + C(3 * kCubic) * s2);
      r = g * (C(0.5) * (C(1) + t) + C(0.5) * s * (C(1) - t * t) * inner);
    }
    return T(r);
  }
};

}  // namespace

void activation_backward_kernel(Activation op, const TensorIterator& it, const ActivationParams& p, bool from_result) {
  visit_dtype(it.common_dtype(), [&]<typename T>(T) {
    if constexpr (std::is_integral_v<T> || functors::is_float8<T>) {
      throw Error("activation_backward: floating dtypes only");
    } else {
      using C = functors::Compute<T>;
      visit_activation(op, [&]<Activation Op>(std::integral_constant<Activation, Op>) {
        elementwise_tensors<T, T, T>(it.output(), inputs_of<2>(it),
                                     Backward<T, Op>{C(p.a), C(p.b), C(p.c), from_result});
      });
    }
  });
}

}  // namespace ember::cuda_backend

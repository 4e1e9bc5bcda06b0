// kernels::activation on CUDA: one elementwise functor per activation, the arithmetic of the CPU kernel
// (src/cpu/unary/nn_activation.cpp) in Compute<T>, rounded back to T.
#include <cmath>

#include "activation.cuh"

namespace ember::cuda_backend {

namespace {

template <typename T, Activation Op>
struct Forward {
  using C = functors::Compute<T>;
  C a, b, c;

  __device__ T operator()(T in) const {
    using A = Activation;
    const C x = C(in);
    C r;
    if constexpr (Op == A::LeakyRelu) r = x > C(0) ? x : x * a;
    else if constexpr (Op == A::Elu) r = x <= C(0) ? std::expm1(x * c) * (a * b) : x * b;
    else if constexpr (Op == A::Hardtanh) r = x < a ? a : (x > b ? b : x);
    else if constexpr (Op == A::Hardswish) r = x * std::min(std::max(x + C(3), C(0)), C(6)) / C(6);
    else if constexpr (Op == A::Hardsigmoid) r = std::min(std::max(x + C(3), C(0)), C(6)) / C(6);
    else if constexpr (Op == A::Threshold) r = x <= a ? b : x;
    else if constexpr (Op == A::Mish) r = x * std::tanh(std::log1p(std::exp(x)));
    else if constexpr (Op == A::LogSigmoid) r = std::min(x, C(0)) - std::log1p(std::exp(-std::abs(x)));
    else if constexpr (Op == A::Softshrink) r = x > a ? x - a : (x < -a ? x + a : x * C(0));
    else if constexpr (Op == A::Hardshrink) r = x >= -C(T(a)) && x <= C(T(a)) ? C(0) : x;  // lambd rounded to T
    else if constexpr (Op == A::GeluErf) r = C(0.5) * x * (C(1) + std::erf(x * C(kSqrt1_2)));
    else if constexpr (Op == A::Silu) r = x / (C(1) + std::exp(-x));
    else r = C(0.5) * x * (C(1) + std::tanh(C(kSqrt2OverPi) * (x + C(kCubic) * x * x * x)));
    return T(r);
  }
};

// hardtanh (a clamp) and threshold of integers.
template <typename T>
struct IntegerClamp {
  T a, b;
  bool threshold;
  __device__ T operator()(T x) const { return threshold ? (x <= a ? b : x) : (x < a ? a : (x > b ? b : x)); }
};

}  // namespace

void activation_kernel(Activation op, const TensorIterator& it, const ActivationParams& p) {
  visit_dtype(it.common_dtype(), [&]<typename T>(T) {
    if constexpr (std::is_same_v<T, bool> || functors::is_float8<T>) {
      throw Error("activation: the op layer must reject this dtype first");
    } else if constexpr (std::is_integral_v<T>) {
      IntegerClamp<T> f{convert<T>(p.a), convert<T>(p.b), op == Activation::Threshold};
      elementwise_tensors<T, T>(it.output(), inputs_of<1>(it), f);
    } else {
      using C = functors::Compute<T>;
      visit_activation(op, [&]<Activation Op>(std::integral_constant<Activation, Op>) {
        elementwise_tensors<T, T>(it.output(), inputs_of<1>(it), Forward<T, Op>{C(p.a), C(p.b), C(p.c)});
      });
    }
  });
}

}  // namespace ember::cuda_backend

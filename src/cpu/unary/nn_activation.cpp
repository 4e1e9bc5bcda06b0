// The parameterised activations (kernels::activation, kernels::activation_backward): one elementwise loop per
// op and dtype, contiguous runs written as plain indexed loops so they vectorise (exp/tanh/erf through libmvec).
#include "nn_activation.h"

#include <cmath>

#include "../compute_type.h"
#include "../strided_loop.h"
#include "../vector_math.h"

namespace ember::cpu {

namespace {

// out = f(in...) over the iterator's operands (output first), all of type T.
template <typename T, int N, typename F>
void elementwise(const TensorIterator& it, F f) {
  if (it.numel() == 0) return;
  auto plan = it.plan<N>();
  parallel_rows(plan, kParallelGrain / 4, [&](const std::array<char*, N>& p, int64_t n, const std::array<int64_t, N>& s) {
    const F fn = f;  // a local copy: f's parameters read through a reference could alias the output, no vector loop
    bool contiguous = true;
    for (int k = 0; k < N; ++k) contiguous = contiguous && s[k] == int64_t(sizeof(T));
    auto* o = reinterpret_cast<T*>(p[0]);
    auto* a = reinterpret_cast<const T*>(p[1]);
    if constexpr (N == 2) {
      if (contiguous) {
        for (int64_t i = 0; i < n; ++i) o[i] = fn(a[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<T*>(p[0] + i * s[0]) = fn(*reinterpret_cast<const T*>(p[1] + i * s[1]));
        }
      }
    } else {
      auto* b = reinterpret_cast<const T*>(p[2]);
      if (contiguous) {
        for (int64_t i = 0; i < n; ++i) o[i] = fn(a[i], b[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<T*>(p[0] + i * s[0]) = fn(*reinterpret_cast<const T*>(p[1] + i * s[1]),
                                                    *reinterpret_cast<const T*>(p[2] + i * s[2]));
        }
      }
    }
  });
}

constexpr double kSqrt1_2 = 0.70710678118654752440, kTwoOverSqrtPi = 1.12837916709551257390;
constexpr double kSqrt2OverPi = 0.79788456080286535588, kCubic = 0.044715;

template <typename T>
void forward_floating(Activation op, const TensorIterator& it, const ActivationParams& p) {
  using C = Compute<T>;
  const C a = C(p.a), b = C(p.b), c = C(p.c);
  auto run = [&](auto f) { elementwise<T, 2>(it, [f](T in) { return T(f(C(in))); }); };
  switch (op) {
    case Activation::LeakyRelu: return run([a](C x) { return x > C(0) ? x : x * a; });
    case Activation::Elu: return run([a, b, c](C x) { return x <= C(0) ? std::expm1(x * c) * (a * b) : x * b; });
    case Activation::Hardtanh: return run([a, b](C x) { return x < a ? a : (x > b ? b : x); });
    case Activation::Hardswish:
      return run([](C x) { return x * std::min(std::max(x + C(3), C(0)), C(6)) / C(6); });
    case Activation::Hardsigmoid: return run([](C x) { return std::min(std::max(x + C(3), C(0)), C(6)) / C(6); });
    case Activation::Threshold: return run([a, b](C x) { return x <= a ? b : x; });
    case Activation::Mish: return run([](C x) { return x * std::tanh(std::log1p(std::exp(x))); });
    case Activation::LogSigmoid:
      return run([](C x) { return std::min(x, C(0)) - std::log1p(std::exp(-std::abs(x))); });
    case Activation::Softshrink: return run([a](C x) { return x > a ? x - a : (x < -a ? x + a : x * C(0)); });
    case Activation::Hardshrink: {  // lambd rounded to T, as torch's (softshrink's forward keeps it wide)
      const C t = C(T(p.a));
      return run([t](C x) { return x >= -t && x <= t ? C(0) : x; });
    }
    case Activation::GeluErf: return run([](C x) { return C(0.5) * x * (C(1) + std::erf(x * C(kSqrt1_2))); });
    case Activation::Silu: return run([](C x) { return x / (C(1) + std::exp(-x)); });
    case Activation::GeluTanh:
      return run([](C x) { return C(0.5) * x * (C(1) + std::tanh(C(kSqrt2OverPi) * (x + C(kCubic) * x * x * x))); });
  }
}

template <typename T>
void backward_floating(Activation op, const TensorIterator& it, const ActivationParams& p, bool from_result) {
  using C = Compute<T>;
  const C a = C(p.a), b = C(p.b), c = C(p.c);
  auto run = [&](auto f) { elementwise<T, 3>(it, [f](T g, T s) { return T(f(C(g), C(s))); }); };
  switch (op) {
    case Activation::LeakyRelu: return run([a](C g, C s) { return s > C(0) ? g : g * a; });
    case Activation::Elu:
      // NaN takes the negative branch, as torch's vectorised kernel
      if (from_result) return run([a, b, c](C g, C r) { return r > C(0) ? g * b : g * c * (r + a * b); });
      return run([a, b, c](C g, C x) { return x > C(0) ? g * b : g * c * (a * b) * std::exp(x * c); });
    case Activation::Hardtanh: return run([a, b](C g, C s) { return s > a && s < b ? g : C(0); });  // NaN: 0
    case Activation::Hardswish:
      return run([](C g, C x) { return x <= C(-3) ? C(0) : (x >= C(3) ? g : g * (x / C(3) + C(0.5))); });  // NaN: NaN (torch vector body)
    case Activation::Hardsigmoid:  // torch multiplies by the float 1/6, also for double
      return run([](C g, C x) { return x > C(-3) && x < C(3) ? g * C(1.0f / 6.0f) : C(0); });
    case Activation::Threshold: return run([a](C g, C s) { return s <= a ? C(0) : g; });
    case Activation::Mish:
      return run([](C g, C x) {
        C t = std::tanh(std::log1p(std::exp(x)));
        C sig = C(1) / (C(1) + std::exp(-x));
        return g * (t + x * sig * (C(1) - t * t));
      });
    case Activation::LogSigmoid:
      return run([](C g, C x) {
        C z = std::exp(-std::abs(x));
        return x < C(0) ? g * (C(1) - z / (C(1) + z)) : g * (z / (C(1) + z));
      });
    case Activation::Softshrink:
    case Activation::Hardshrink: {  // both backwards round lambd to T, as torch's; NaN: 0
      const C t = C(T(p.a));
      return run([t](C g, C x) { return x > t || x < -t ? g : C(0); });
    }
    case Activation::GeluErf:
      return run([](C g, C x) {
        C cdf = C(0.5) * (C(1) + std::erf(x * C(kSqrt1_2)));
        C pdf = std::exp(C(-0.5) * x * x) * C(kTwoOverSqrtPi * kSqrt1_2 * 0.5);
        return g * (cdf + x * pdf);
      });
    case Activation::Silu:  // torch's silu_backward: sigmoid times (1 + x (1 - sigmoid))
      return run([](C g, C x) {
        C sig = C(1) / (C(1) + std::exp(-x));
        return g * sig * (C(1) + x * (C(1) - sig));
      });
    case Activation::GeluTanh:
      return run([](C g, C x) {
        C x2 = x * x;
        C t = std::tanh(C(kSqrt2OverPi) * x * (C(1) + C(kCubic) * x2));
        C inner = C(kSqrt2OverPi) * (C(1) + C(3 * kCubic) * x2);
        return g * (C(0.5) * (C(1) + t) + C(0.5) * x * (C(1) - t * t) * inner);
      });
  }
}

}  // namespace

void activation_kernel(Activation op, const TensorIterator& it, const ActivationParams& p) {
  visit_dtype(it.common_dtype(), [&]<typename T>(T) {
    if constexpr (std::is_same_v<T, bool> || functors::is_float8<T>) {
      throw Error("activation: the op layer must reject this dtype first");
    } else if constexpr (std::is_integral_v<T>) {  // hardtanh (a clamp) and threshold
      const T a = convert<T>(p.a), b = convert<T>(p.b);
      if (op == Activation::Hardtanh) elementwise<T, 2>(it, [a, b](T x) { return x < a ? a : (x > b ? b : x); });
      else elementwise<T, 2>(it, [a, b](T x) { return x <= a ? b : x; });
    } else {
      forward_floating<T>(op, it, p);
    }
  });
}

void activation_backward_kernel(Activation op, const TensorIterator& it, const ActivationParams& p, bool from_result) {
  visit_dtype(it.common_dtype(), [&]<typename T>(T) {
    if constexpr (std::is_integral_v<T> || functors::is_float8<T>) {
      throw Error("activation_backward: floating dtypes only");
    } else {
      backward_floating<T>(op, it, p, from_result);
    }
  });
}

}  // namespace ember::cpu

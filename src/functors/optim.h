// The optimizers' element updates, written once for the CPU loop (src/optim/step_kernel.cpp) and the CUDA
// multi-tensor kernel (src/cuda/optim). Each follows torch's single-tensor math op by op in the parameter's
// dtype: std::fma where torch's CPU kernels fuse, and no implicit contraction on the CPU (src/optim builds with
// -ffp-contract=off; nvcc contracts, so CUDA may differ by an FMA's rounding).
// An update (XUpdate) is a functor on element k of one tensor's streams: the parameter p, its gradient g and up
// to three state streams a, b, c (each update names its own); its options are template flags, so a loop over it
// has no branches, but maximize, a sign the gradient is multiplied by (exact), which halves the kernels built. A
// group's options (XStep) pick the functor type for a tensor (visit_types: the flags) and make it from that
// tensor's host-computed scalars (make).
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <variant>

#include "ember/host_device.h"

namespace ember::functors {

// Calls fn with each runtime flag as a std::bool_constant: static_flags(fn, a, b) calls
// fn(bool_constant<a>{}, bool_constant<b>{}).
template <typename Fn>
void static_flags(Fn&& fn) {
  fn();
}
template <typename Fn, typename... Rest>
void static_flags(Fn&& fn, bool flag, Rest... rest) {
  auto bind = [&]<bool B>(std::bool_constant<B> b) {
    static_flags([&](auto... more) { fn(b, more...); }, rest...);
  };
  if (flag) bind(std::true_type{});
  else bind(std::false_type{});
}

// One tensor of a step as its functor sees it from the host: its scalars (meaning per update) and flag.
struct TensorScalars {
  std::array<double, 3> s{};
  bool flag = false;  // SGD: the momentum buffer starts here; RAdam: the step is rectified
};

// torch's lerp: a + w (b - a) for small weights, b - (b - a)(1 - w) for large.
template <typename T>
EMBER_HOST_DEVICE T lerp(T a, T b, T w) {
  return w < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
}
// The gradient after maximize (sign: -1) and coupled weight decay (grad + wd param), unfused.
template <typename T, bool kDecay>
EMBER_HOST_DEVICE T decayed(T g, T sign, T p, T wd) {
  T d = g * sign;
  return kDecay ? d + wd * p : d;
}

// ---- SGD: a = momentum buffer (kInit: it starts as the gradient). Fused as torch's CPU kernels.
template <typename T, bool kDecay, bool kMomentum, bool kInit, bool kNesterov>
struct SGDUpdate {
  using Elem = T;
  T sign, wd, mom, damp, neg_lr;
  EMBER_HOST_DEVICE void operator()(int64_t k, T* p, const T* g, T* a, T*, T*) const {
    T d = g[k] * sign;
    if constexpr (kDecay) d = std::fma(p[k], wd, d);
    if constexpr (kMomentum) {
      T m = kInit ? d : std::fma(d, damp, a[k] * mom);
      a[k] = m;
      d = kNesterov ? std::fma(m, mom, d) : m;
    }
    p[k] = std::fma(d, neg_lr, p[k]);
  }
};
struct SGDStep {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize;
  template <typename T, typename Fn>
  void visit_types(const TensorScalars& t, Fn&& fn) const {
    const bool with_momentum = momentum != 0;  // the buffer's start and nesterov only matter with one
    static_flags([&](auto... f) { fn(std::type_identity<SGDUpdate<T, decltype(f)::value...>>{}); },
                 weight_decay != 0, with_momentum, with_momentum && t.flag, with_momentum && nesterov);
  }
  template <typename F, typename T = typename F::Elem>
  F make(const TensorScalars&) const {
    return {T(maximize ? -1 : 1), T(weight_decay), T(momentum), T(1 - dampening), T(-lr)};
  }
};

// ---- Adam, AdamW: a = exp_avg, b = exp_avg_sq, c = max_exp_avg_sq. Per tensor: s[0] = sqrt(1 - beta2^t),
// s[1] = lr / (1 - beta1^t).
template <typename T, bool kCoupled, bool kDecoupled, bool kAmsgrad, bool kSmallW1>
struct AdamUpdate {
  using Elem = T;
  T sign, wd, shrink, w1, b2, w2, bc2, eps, neg_step;
  EMBER_HOST_DEVICE void operator()(int64_t k, T* p, const T* g, T* a, T* b, T* c) const {
    T d = g[k] * sign;
    T x = kDecoupled ? p[k] * shrink : p[k];
    if constexpr (kCoupled) d = std::fma(x, wd, d);
    T mk = kSmallW1 ? std::fma(w1, d - a[k], a[k]) : std::fma(w1 - T(1), d - a[k], d);
    T vk = std::fma(w2 * d, d, b[k] * b2);
    a[k] = mk;
    b[k] = vk;
    if constexpr (kAmsgrad) vk = c[k] = c[k] < vk ? vk : c[k];
    p[k] = x + neg_step * mk / (std::sqrt(vk) / bc2 + eps);
  }
};
struct AdamStep {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;
  template <typename T, typename Fn>
  void visit_types(const TensorScalars&, Fn&& fn) const {
    const bool decay = weight_decay != 0;
    static_flags([&](auto... f) { fn(std::type_identity<AdamUpdate<T, decltype(f)::value...>>{}); },
                 decay && !decoupled, decay && decoupled, amsgrad, T(1 - beta1) < T(0.5));
  }
  template <typename F, typename T = typename F::Elem>
  F make(const TensorScalars& t) const {
    return {T(maximize ? -1 : 1), T(weight_decay), T(1 - lr * weight_decay), T(1 - beta1), T(beta2), T(1 - beta2),
            T(t.s[0]),           T(eps),           T(-t.s[1])};
  }
};

// ---- Adagrad: a = sum. Per tensor: s[0] = lr / (1 + (step - 1) lr_decay).
template <typename T, bool kDecay>
struct AdagradUpdate {
  using Elem = T;
  T sign, wd, neg_clr, eps;
  EMBER_HOST_DEVICE void operator()(int64_t k, T* p, const T* g, T* a, T*, T*) const {
    T d = decayed<T, kDecay>(g[k], sign, p[k], wd);
    a[k] = a[k] + d * d;
    p[k] = p[k] + neg_clr * (d / (std::sqrt(a[k]) + eps));
  }
};
struct AdagradStep {
  double eps, weight_decay;
  bool maximize;
  template <typename T, typename Fn>
  void visit_types(const TensorScalars&, Fn&& fn) const {
    static_flags([&](auto... f) { fn(std::type_identity<AdagradUpdate<T, decltype(f)::value...>>{}); },
                 weight_decay != 0);
  }
  template <typename F, typename T = typename F::Elem>
  F make(const TensorScalars& t) const {
    return {T(maximize ? -1 : 1), T(weight_decay), T(-t.s[0]), T(eps)};
  }
};

// ---- RMSprop: a = square_avg, b = momentum_buffer, c = grad_avg (centered).
template <typename T, bool kDecay, bool kCentered, bool kMomentum>
struct RMSpropUpdate {
  using Elem = T;
  T sign, wd, alpha, w, eps, mom, neg_lr;
  EMBER_HOST_DEVICE void operator()(int64_t k, T* p, const T* g, T* a, T* b, T* c) const {
    T d = decayed<T, kDecay>(g[k], sign, p[k], wd);
    T sk = a[k] * alpha + w * d * d;
    a[k] = sk;
    T avg;
    if constexpr (kCentered) {
      T gk = c[k] = lerp(c[k], d, w);
      avg = std::sqrt(sk - gk * gk) + eps;
    } else {
      avg = std::sqrt(sk) + eps;
    }
    if constexpr (kMomentum) {
      T bk = b[k] = b[k] * mom + d / avg;
      p[k] = p[k] + neg_lr * bk;
    } else {
      p[k] = p[k] + neg_lr * (d / avg);
    }
  }
};
struct RMSpropStep {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered, maximize;
  template <typename T, typename Fn>
  void visit_types(const TensorScalars&, Fn&& fn) const {
    static_flags([&](auto... f) { fn(std::type_identity<RMSpropUpdate<T, decltype(f)::value...>>{}); },
                 weight_decay != 0, centered, momentum > 0);
  }
  template <typename F, typename T = typename F::Elem>
  F make(const TensorScalars&) const {
    return {T(maximize ? -1 : 1), T(weight_decay), T(alpha), T(1 - alpha), T(eps), T(momentum), T(-lr)};
  }
};

// ---- Adamax: a = exp_avg, b = exp_inf. Per tensor: s[0] = lr / (1 - beta1^t).
template <typename T, bool kDecay>
struct AdamaxUpdate {
  using Elem = T;
  T sign, wd, w1, beta2, eps, neg_clr;
  EMBER_HOST_DEVICE void operator()(int64_t k, T* p, const T* g, T* a, T* b, T*) const {
    T d = decayed<T, kDecay>(g[k], sign, p[k], wd);
    T mk = a[k] = lerp(a[k], d, w1);
    T decayed_inf = b[k] * beta2, fresh = std::abs(d) + eps;
    T uk = b[k] = decayed_inf < fresh ? fresh : decayed_inf;
    p[k] = p[k] + neg_clr * (mk / uk);
  }
};
struct AdamaxStep {
  double beta1, beta2, eps, weight_decay;
  bool maximize;
  template <typename T, typename Fn>
  void visit_types(const TensorScalars&, Fn&& fn) const {
    static_flags([&](auto... f) { fn(std::type_identity<AdamaxUpdate<T, decltype(f)::value...>>{}); },
                 weight_decay != 0);
  }
  template <typename F, typename T = typename F::Elem>
  F make(const TensorScalars& t) const {
    return {T(maximize ? -1 : 1), T(weight_decay), T(1 - beta1), T(beta2), T(eps), T(-t.s[0])};
  }
};

// The weight decay of NAdam and RAdam: decoupled scales the parameter by (1 - lr wd) first, coupled adds
// wd param to the (maximized: sign -1) gradient. Returns the parameter to update; d is the gradient.
template <typename T, bool kCoupled, bool kDecoupled>
EMBER_HOST_DEVICE T decay_param(T p, T g, T sign, T wd, T shrink, T& d) {
  T x = kDecoupled ? p * shrink : p;
  d = g * sign;
  if constexpr (kCoupled) d = d + wd * x;
  return x;
}

// ---- NAdam: a = exp_avg, b = exp_avg_sq. Per tensor: s = {grad coefficient, exp_avg coefficient, 1 - beta2^t}.
template <typename T, bool kCoupled, bool kDecoupled>
struct NAdamUpdate {
  using Elem = T;
  T sign, wd, shrink, w1, beta2, w2, eps, cg, cm, bc2;
  EMBER_HOST_DEVICE void operator()(int64_t k, T* p, const T* g, T* a, T* b, T*) const {
    T d;
    T x = decay_param<T, kCoupled, kDecoupled>(p[k], g[k], sign, wd, shrink, d);
    T mk = a[k] = lerp(a[k], d, w1);
    T vk = b[k] = b[k] * beta2 + w2 * d * d;
    T denom = std::sqrt(vk / bc2) + eps;
    x = x + cg * (d / denom);
    p[k] = x + cm * (mk / denom);
  }
};
struct NAdamStep {
  double lr, beta1, beta2, eps, weight_decay;
  bool decoupled, maximize;
  template <typename T, typename Fn>
  void visit_types(const TensorScalars&, Fn&& fn) const {
    static_flags([&](auto... f) { fn(std::type_identity<NAdamUpdate<T, decltype(f)::value...>>{}); },
                 !decoupled && weight_decay != 0, decoupled && weight_decay != 0);
  }
  template <typename F, typename T = typename F::Elem>
  F make(const TensorScalars& t) const {
    return {T(maximize ? -1 : 1), T(weight_decay), T(1 - lr * weight_decay), T(1 - beta1), T(beta2), T(1 - beta2),
            T(eps),               T(t.s[0]),       T(t.s[1]),                T(t.s[2])};
  }
};

// ---- RAdam: a = exp_avg, b = exp_avg_sq. Per tensor: s = {1 - beta1^t, sqrt(1 - beta2^t), rectification},
// flag: rectified (rho_t > 5; else plain momentum).
template <typename T, bool kCoupled, bool kDecoupled, bool kRect>
struct RAdamUpdate {
  using Elem = T;
  T sign, wd, shrink, w1, beta2, w2, eps, lr, bias1, sqrt_bc2, r;
  EMBER_HOST_DEVICE void operator()(int64_t k, T* p, const T* g, T* a, T* b, T*) const {
    T d;
    T x = decay_param<T, kCoupled, kDecoupled>(p[k], g[k], sign, wd, shrink, d);
    T mk = a[k] = lerp(a[k], d, w1);
    T vk = b[k] = b[k] * beta2 + w2 * d * d;
    T corrected = mk / bias1;
    if constexpr (kRect) p[k] = x - corrected * lr * (sqrt_bc2 / (std::sqrt(vk) + eps)) * r;
    else p[k] = x - corrected * lr;
  }
};
struct RAdamStep {
  double lr, beta1, beta2, eps, weight_decay;
  bool decoupled, maximize;
  template <typename T, typename Fn>
  void visit_types(const TensorScalars& t, Fn&& fn) const {
    static_flags([&](auto... f) { fn(std::type_identity<RAdamUpdate<T, decltype(f)::value...>>{}); },
                 !decoupled && weight_decay != 0, decoupled && weight_decay != 0, t.flag);
  }
  template <typename F, typename T = typename F::Elem>
  F make(const TensorScalars& t) const {
    return {T(maximize ? -1 : 1), T(weight_decay), T(1 - lr * weight_decay), T(1 - beta1), T(beta2), T(1 - beta2),
            T(eps),               T(lr),           T(t.s[0]),                T(t.s[1]),    T(t.s[2])};
  }
};

// ---- Adadelta: a = square_avg, b = acc_delta.
template <typename T, bool kDecay>
struct AdadeltaUpdate {
  using Elem = T;
  T sign, wd, rho, w, eps, neg_lr;
  EMBER_HOST_DEVICE void operator()(int64_t k, T* p, const T* g, T* a, T* b, T*) const {
    T d = decayed<T, kDecay>(g[k], sign, p[k], wd);
    T sk = a[k] = a[k] * rho + w * d * d;
    T delta = std::sqrt(b[k] + eps) / std::sqrt(sk + eps) * d;
    b[k] = b[k] * rho + w * delta * delta;
    p[k] = p[k] + neg_lr * delta;
  }
};
struct AdadeltaStep {
  double lr, rho, eps, weight_decay;
  bool maximize;
  template <typename T, typename Fn>
  void visit_types(const TensorScalars&, Fn&& fn) const {
    static_flags([&](auto... f) { fn(std::type_identity<AdadeltaUpdate<T, decltype(f)::value...>>{}); },
                 weight_decay != 0);
  }
  template <typename F, typename T = typename F::Elem>
  F make(const TensorScalars&) const {
    return {T(maximize ? -1 : 1), T(weight_decay), T(rho), T(1 - rho), T(eps), T(-lr)};
  }
};

// ---- ASGD: a = ax, the average of the iterates. Per tensor: s = {eta, mu}; flag: mu is 1 (ax copies the parameter).
template <typename T, bool kDecay, bool kCopy>
struct ASGDUpdate {
  using Elem = T;
  T sign, wd, shrink, neg_eta, mu;
  EMBER_HOST_DEVICE void operator()(int64_t k, T* p, const T* g, T* a, T*, T*) const {
    T d = g[k] * sign;
    if constexpr (kDecay) d = std::fma(p[k], wd, d);
    T x = p[k] = std::fma(d, neg_eta, p[k] * shrink);
    a[k] = kCopy ? x : a[k] + (x - a[k]) * mu;
  }
};
struct ASGDStep {
  double lambd, weight_decay;
  bool maximize;
  template <typename T, typename Fn>
  void visit_types(const TensorScalars& t, Fn&& fn) const {
    static_flags([&](auto... f) { fn(std::type_identity<ASGDUpdate<T, decltype(f)::value...>>{}); },
                 weight_decay != 0, t.flag);
  }
  template <typename F, typename T = typename F::Elem>
  F make(const TensorScalars& t) const {
    return {T(maximize ? -1 : 1), T(weight_decay), T(1 - lambd * t.s[0]), T(-t.s[0]), T(t.s[1])};
  }
};

// ---- Rprop: a = prev (the last gradient kept), b = step_size. torch's sign is 0 for NaN.
template <typename T>
struct RpropUpdate {
  using Elem = T;
  T sign, etaminus, etaplus, lo, hi;
  EMBER_HOST_DEVICE static T sgn(T x) { return T(T(0) < x) - T(x < T(0)); }
  EMBER_HOST_DEVICE void operator()(int64_t k, T* p, const T* g, T* a, T* b, T*) const {
    T d = g[k] * sign;
    T s = sgn(d * a[k]);
    T factor = s > T(0) ? etaplus : s < T(0) ? etaminus : T(1);
    T size = b[k] * factor;
    size = size != size ? size : size < lo ? lo : size > hi ? hi : size;  // clamp, NaN kept
    b[k] = size;
    if (factor == etaminus) d = T(0);  // the sign flipped: no move, and no flip counted next time
    p[k] = p[k] + -sgn(d) * size;
    a[k] = d;
  }
};
struct RpropStep {
  double etaminus, etaplus, step_size_min, step_size_max;
  bool maximize;
  template <typename T, typename Fn>
  void visit_types(const TensorScalars&, Fn&& fn) const {
    fn(std::type_identity<RpropUpdate<T>>{});
  }
  template <typename F, typename T = typename F::Elem>
  F make(const TensorScalars&) const {
    return {T(maximize ? -1 : 1), T(etaminus), T(etaplus), T(step_size_min), T(step_size_max)};
  }
};

// A group's step: which optimizer, with its options.
using OptimUpdate = std::variant<SGDStep, AdamStep, AdagradStep, RMSpropStep, AdamaxStep, NAdamStep, RAdamStep,
                                 AdadeltaStep, ASGDStep, RpropStep>;

// Calls fn(functor) with the update of one tensor of element type T (float or double).
template <typename T, typename Fn>
void visit_update(const OptimUpdate& u, const TensorScalars& t, Fn&& fn) {
  std::visit([&](const auto& step) {
    step.template visit_types<T>(t, [&]<typename F>(std::type_identity<F>) { fn(step.template make<F>(t)); });
  }, u);
}

}  // namespace ember::functors

// Fused multi-tensor optimizer steps. The element math follows torch's _single_tensor_sgd/_adam
// op by op with the roundings of torch's CPU kernels (fma where they fuse: add with alpha, lerp,
// addcmul; (value * a) / b for addcdiv), so a step is bitwise torch's; one pass per parameter.
// Each loop is specialised on the options' flags (static_flags), so it is branch-free and vectorises
// (CMakeLists builds src/optim with -fno-math-errno for sqrt).
#include "ember/optim/functional.h"

#include <algorithm>
#include <cmath>

#include "ember/creation.h"
#include "ember/errors.h"
#include "ember/parallel.h"
#include "fused.h"

namespace ember::optim::functional {
using detail::check_like;
using detail::for_each_chunk;
using detail::static_flags;
using detail::visit_float;

// One SGD step's scalars for a tensor, in its dtype.
template <typename T>
struct SGDScalars {
  T wd, mom, damp, neg_lr;
};

// SGD over n elements, specialised on the flags (kInit: the momentum buffer starts as the gradient).
template <typename T, bool kMaximize, bool kDecay, bool kMomentum, bool kInit, bool kNesterov>
void sgd_loop(T* __restrict p, const T* __restrict g, T* __restrict buf, int64_t n, const SGDScalars<T> c) {
  for (int64_t k = 0; k < n; ++k) {
    T d = kMaximize ? -g[k] : g[k];
    if constexpr (kDecay) d = std::fma(p[k], c.wd, d);
    if constexpr (kMomentum) {
      T m = kInit ? d : std::fma(d, c.damp, buf[k] * c.mom);
      buf[k] = m;
      d = kNesterov ? std::fma(m, c.mom, d) : m;
    }
    p[k] = std::fma(d, c.neg_lr, p[k]);
  }
}

void sgd(const std::vector<Tensor>& params, const std::vector<Tensor>& grads, std::vector<Tensor>& momentum_buffers,
         const SGDOptions& o) {
  EMBER_CHECK(grads.size() == params.size() && momentum_buffers.size() == params.size(), Error,
              "sgd: params, grads and momentum_buffers must have the same length");
  std::vector<char> first(params.size(), 0);  // buffer made this step: it starts as the gradient
  for (size_t i = 0; i < params.size(); ++i) {
    check_like(params[i], params[i], "param", i);
    check_like(grads[i], params[i], "grad", i);
    if (o.momentum != 0 && !momentum_buffers[i].defined()) {
      momentum_buffers[i] = empty_like(params[i]);
      first[i] = 1;
    }
    if (o.momentum != 0) check_like(momentum_buffers[i], params[i], "momentum_buffer", i);
  }
  for_each_chunk(params, {&momentum_buffers}, [&](size_t i, int64_t b, int64_t e) {
    visit_float(params[i], [&]<typename T>(T) {
      const SGDScalars<T> c{T(o.weight_decay), T(o.momentum), T(1 - o.dampening), T(-o.lr)};
      T* buf = o.momentum != 0 ? momentum_buffers[i].data_ptr<T>() + b : nullptr;
      static_flags(
          [&](auto maximize, auto decay, auto momentum, auto init, auto nesterov) {
            sgd_loop<T, decltype(maximize)::value, decltype(decay)::value, decltype(momentum)::value,
                     decltype(init)::value, decltype(nesterov)::value>(
                params[i].data_ptr<T>() + b, grads[i].data_ptr<T>() + b, buf, e - b, c);
          },
          o.maximize, o.weight_decay != 0, o.momentum != 0, first[i] != 0, o.nesterov);
    });
  });
}

// One Adam step's scalars for a tensor, in its dtype.
template <typename T>
struct AdamScalars {
  T wd, shrink, w1, b2, w2, bc2, eps, neg_step;
};

// Adam over n elements, specialised on the flags: no branches and no aliasing (restrict parameters, scalars
// by value), so it vectorises without runtime checks.
template <typename T, bool kMaximize, bool kCoupled, bool kDecoupled, bool kAmsgrad, bool kSmallW1>
void adam_loop(T* __restrict p, const T* __restrict g, T* __restrict m, T* __restrict v, T* __restrict vmax,
               int64_t n, const AdamScalars<T> c) {
  for (int64_t k = 0; k < n; ++k) {
    T d = kMaximize ? -g[k] : g[k];
    T x = kDecoupled ? p[k] * c.shrink : p[k];
    if constexpr (kCoupled) d = std::fma(x, c.wd, d);
    T mk = kSmallW1 ? std::fma(c.w1, d - m[k], m[k]) : std::fma(c.w1 - T(1), d - m[k], d);
    T vk = std::fma(c.w2 * d, d, v[k] * c.b2);
    m[k] = mk;
    v[k] = vk;
    if constexpr (kAmsgrad) vk = vmax[k] = std::max(vmax[k], vk);
    p[k] = x + c.neg_step * mk / (std::sqrt(vk) / c.bc2 + c.eps);
  }
}

void adam(const std::vector<Tensor>& params, const std::vector<Tensor>& grads, const std::vector<Tensor>& exp_avgs,
          const std::vector<Tensor>& exp_avg_sqs, const std::vector<Tensor>& max_exp_avg_sqs,
          const std::vector<Tensor>& steps, const AdamOptions& o) {
  const size_t n = params.size();
  EMBER_CHECK(grads.size() == n && exp_avgs.size() == n && exp_avg_sqs.size() == n && steps.size() == n &&
                  (!o.amsgrad || max_exp_avg_sqs.size() == n),
              Error, "adam: params, grads and state lists must have the same length");
  std::vector<double> step_size(n), bc2_sqrt(n);
  for (size_t i = 0; i < n; ++i) {
    check_like(params[i], params[i], "param", i);
    check_like(grads[i], params[i], "grad", i);
    check_like(exp_avgs[i], params[i], "exp_avg", i);
    check_like(exp_avg_sqs[i], params[i], "exp_avg_sq", i);
    if (o.amsgrad) check_like(max_exp_avg_sqs[i], params[i], "max_exp_avg_sq", i);
    EMBER_CHECK(steps[i].defined() && steps[i].numel() == 1 && steps[i].dtype() == kFloat32 && steps[i].device().is_cpu(),
                Error, "adam: step of parameter ", i, " must be a one-element float32 CPU tensor");
    float& step = *steps[i].data_ptr<float>();
    step += 1;  // torch: step_t += 1, then the bias corrections from its Python float value
    step_size[i] = o.lr / (1 - std::pow(o.beta1, double(step)));
    bc2_sqrt[i] = std::sqrt(1 - std::pow(o.beta2, double(step)));
    steps[i].bump_version();
  }
  const bool decay = o.weight_decay != 0;
  for_each_chunk(params, {&exp_avgs, &exp_avg_sqs, &max_exp_avg_sqs}, [&](size_t i, int64_t b, int64_t e) {
    visit_float(params[i], [&]<typename T>(T) {
      const AdamScalars<T> c{T(o.weight_decay), T(1 - o.lr * o.weight_decay), T(1 - o.beta1), T(o.beta2),
                             T(1 - o.beta2), T(bc2_sqrt[i]), T(o.eps), T(-step_size[i])};
      T* vmax = o.amsgrad ? max_exp_avg_sqs[i].data_ptr<T>() + b : nullptr;
      static_flags(
          [&](auto maximize, auto coupled, auto decoupled, auto amsgrad, auto small_w1) {
            adam_loop<T, decltype(maximize)::value, decltype(coupled)::value, decltype(decoupled)::value,
                      decltype(amsgrad)::value, decltype(small_w1)::value>(
                params[i].data_ptr<T>() + b, grads[i].data_ptr<T>() + b, exp_avgs[i].data_ptr<T>() + b,
                exp_avg_sqs[i].data_ptr<T>() + b, vmax, e - b, c);
          },
          o.maximize, decay && !o.decoupled_weight_decay, decay && o.decoupled_weight_decay, o.amsgrad,
          c.w1 < T(0.5));
    });
  });
}

}  // namespace ember::optim::functional

// Fused multi-tensor optimizer steps. The element math follows torch's _single_tensor_sgd/_adam
// op by op (same roundings in the parameter's dtype); the whole step is one pass per parameter.
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
      T* __restrict p = params[i].data_ptr<T>();
      const T* __restrict g = grads[i].data_ptr<T>();
      T* __restrict buf = o.momentum != 0 ? momentum_buffers[i].data_ptr<T>() : nullptr;
      const bool maximize = o.maximize, decay = o.weight_decay != 0, nesterov = o.nesterov;
      const T wd = T(o.weight_decay), mom = T(o.momentum), damp = T(1 - o.dampening), neg_lr = T(-o.lr);
      const bool init = first[i];
      for (int64_t k = b; k < e; ++k) {
        T d = maximize ? -g[k] : g[k];
        if (decay) d = d + wd * p[k];
        if (buf) {
          T m = init ? d : buf[k] * mom + damp * d;
          buf[k] = m;
          d = nesterov ? d + mom * m : m;
        }
        p[k] = p[k] + neg_lr * d;
      }
    });
  });
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
      T* __restrict p = params[i].data_ptr<T>();
      const T* __restrict g = grads[i].data_ptr<T>();
      T* __restrict m = exp_avgs[i].data_ptr<T>();
      T* __restrict v = exp_avg_sqs[i].data_ptr<T>();
      T* __restrict vmax = o.amsgrad ? max_exp_avg_sqs[i].data_ptr<T>() : nullptr;
      const T wd = T(o.weight_decay), shrink = T(1 - o.lr * o.weight_decay), w1 = T(1 - o.beta1), b2 = T(o.beta2),
              w2 = T(1 - o.beta2), bc2 = T(bc2_sqrt[i]), eps = T(o.eps), neg_step = T(-step_size[i]);
      const bool small_w1 = w1 < T(0.5);
      static_flags(
          [&](auto maximize, auto coupled, auto decoupled, auto amsgrad) {
            for (int64_t k = b; k < e; ++k) {
              T d = maximize ? -g[k] : g[k];
              T x = decoupled ? p[k] * shrink : p[k];
              if constexpr (coupled) d = d + wd * x;
              T mk = small_w1 ? m[k] + w1 * (d - m[k]) : d - (d - m[k]) * (T(1) - w1);  // lerp as torch
              T vk = v[k] * b2 + w2 * d * d;
              m[k] = mk;
              v[k] = vk;
              if constexpr (amsgrad) vk = vmax[k] = std::max(vmax[k], vk);
              p[k] = x + neg_step * (mk / (std::sqrt(vk) / bc2 + eps));
            }
          },
          o.maximize, decay && !o.decoupled_weight_decay, decay && o.decoupled_weight_decay, o.amsgrad);
    });
  });
}

}  // namespace ember::optim::functional

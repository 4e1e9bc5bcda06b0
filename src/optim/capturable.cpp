// Capturable Adam: torch's capturable single-tensor math on the device, the step counter there and the bias
// corrections computed from it, so that step() reads nothing on the host and a CUDA graph replays it. Contiguous
// float32/float64 parameters take CUDA's multi-tensor kernel (kernels::adam_capturable); others, tensor ops.
#include <algorithm>
#include <utility>

#include "../dispatch/adam_capturable.h"
#include "ember/creation.h"
#include "ember/errors.h"
#include "ember/ops.h"
#include "ember/optim/functional.h"
#include "ember/pointwise.h"
#include "fused.h"

namespace ember::optim::functional {

namespace {

// Whether CUDA's fused kernel takes this parameter: contiguous float32/float64 tensors of one dtype (undefined ones
// skipped) and a float32 counter.
bool fused(const Tensor& p, std::initializer_list<Tensor> tensors, const Tensor& step) {
  if (!p.device().is_cuda() || (p.dtype() != kFloat32 && p.dtype() != kFloat64) || step.dtype() != kFloat32)
    return false;
  for (const Tensor& t : tensors)
    if (t.defined() && (!t.is_contiguous() || t.dtype() != p.dtype())) return false;
  return true;
}

}  // namespace

void adam_capturable(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                     const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                     const std::vector<Tensor>& max_exp_avg_sqs, const std::vector<Tensor>& steps,
                     const AdamOptions& o) {
  const size_t n = params.size();
  EMBER_CHECK(grads.size() == n && exp_avgs.size() == n && exp_avg_sqs.size() == n && steps.size() == n &&
                  (!o.amsgrad || max_exp_avg_sqs.size() == n),
              Error, "adam: params, grads and state lists must have the same length");
  for (size_t i = 0; i < n; ++i) {
    // torch's assertion (an AssertionError in Python)
    EMBER_CHECK(!params[i].device().is_cpu() && steps[i].defined() && steps[i].device() == params[i].device(),
                DeviceUnavailableError, "If capturable=True, params and state_steps must be on supported devices: "
                "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].");
    detail::check_like(grads[i], params[i], "grad", i);
    detail::check_like(exp_avgs[i], params[i], "exp_avg", i);
    detail::check_like(exp_avg_sqs[i], params[i], "exp_avg_sq", i);
    if (o.amsgrad) detail::check_like(max_exp_avg_sqs[i], params[i], "max_exp_avg_sq", i);
  }
  // Contiguous float32/float64 parameters: CUDA's fused step, one call per device and dtype.
  std::vector<std::pair<std::pair<Device, ScalarType>, std::vector<size_t>>> fused_groups;
  std::vector<size_t> others;
  for (size_t i = 0; i < n; ++i) {
    if (!fused(params[i], {params[i], grads[i], exp_avgs[i], exp_avg_sqs[i], o.amsgrad ? max_exp_avg_sqs[i] : Tensor()},
               steps[i])) {
      others.push_back(i);
      continue;
    }
    const std::pair<Device, ScalarType> key{params[i].device(), params[i].dtype()};
    auto it = std::ranges::find_if(fused_groups, [&](const auto& g) { return g.first == key; });
    if (it != fused_groups.end()) {
      it->second.push_back(i);
    } else {
      fused_groups.emplace_back(key, std::vector<size_t>{i});
    }
  }
  const AdamCapturableArgs args{o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, o.amsgrad, o.maximize,
                                o.decoupled_weight_decay};
  for (const auto& [key, members] : fused_groups) {
    auto pick = [&](const std::vector<Tensor>& list) {
      std::vector<Tensor> out;
      for (size_t i : members) out.push_back(list[i]);
      return out;
    };
    const std::vector<Tensor> p = pick(params), m = pick(exp_avgs), v = pick(exp_avg_sqs),
                              vmax = o.amsgrad ? pick(max_exp_avg_sqs) : std::vector<Tensor>(), s = pick(steps);
    kernels::adam_capturable[key.first](p, pick(grads), m, v, vmax, s, args);
    for (const std::vector<Tensor>* list : {&p, &m, &v, &vmax, &s})
      for (const Tensor& t : *list) t.bump_version();
  }
  for (size_t i : others) {
    Tensor p = params[i], m = exp_avgs[i], v = exp_avg_sqs[i], step = steps[i];
    Tensor g = o.maximize ? grads[i].neg() : grads[i];
    step.add_(1);
    if (o.weight_decay != 0) {
      if (o.decoupled_weight_decay) p.mul_(1 - o.lr * o.weight_decay);
      else g = g.add(p, o.weight_decay);
    }
    m.lerp_(g, full({}, 1 - o.beta1, m.options()));
    v.mul_(o.beta2).addcmul_(g, g, 1 - o.beta2);
    // On the device: bias_correction = 1 - beta^step; the step size lr / bias_correction1, negated.
    Tensor bc1 = full({}, o.beta1, step.options()).pow(step).neg_().add_(1);
    Tensor bc2 = full({}, o.beta2, step.options()).pow(step).neg_().add_(1);
    Tensor neg_step_size = bc1.reciprocal().mul_(-o.lr);
    Tensor second = o.amsgrad ? max_exp_avg_sqs[i] : v;
    if (o.amsgrad) second.copy_(second.maximum(v));
    // denom = sqrt(v) / (sqrt(bc2) * -step_size) + eps / -step_size, so that p += m / denom
    Tensor denom = second.sqrt().div_(bc2.sqrt().mul_(neg_step_size)).add_(neg_step_size.reciprocal().mul_(o.eps));
    p.addcdiv_(m, denom);
  }
}

}  // namespace ember::optim::functional

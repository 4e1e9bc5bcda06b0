// Fused multi-tensor optimizer steps: the checks, the state made on the first step and the host's per-tensor
// scalars; the element math (torch's _single_tensor_sgd/_adam op by op with the roundings of torch's CPU
// kernels, so a CPU step is bitwise torch's) is SGDUpdate/AdamUpdate of src/functors/optim.h, run by run_step.
#include "ember/optim/functional.h"

#include <algorithm>
#include <cmath>

#include "ember/creation.h"
#include "ember/errors.h"
#include "fused.h"

namespace ember::optim::functional {
using detail::check_like;
using detail::run_step;

void sgd(const std::vector<Tensor>& params, const std::vector<Tensor>& grads, std::vector<Tensor>& momentum_buffers,
         const SGDOptions& o) {
  EMBER_CHECK(grads.size() == params.size() && momentum_buffers.size() == params.size(), Error,
              "sgd: params, grads and momentum_buffers must have the same length");
  std::vector<functors::TensorScalars> first(params.size());  // flag: buffer made this step, it starts as the gradient
  for (size_t i = 0; i < params.size(); ++i) {
    check_like(params[i], params[i], "param", i);
    check_like(grads[i], params[i], "grad", i);
    if (o.momentum != 0 && !momentum_buffers[i].defined()) {
      momentum_buffers[i] = empty_like(grads[i]);  // torch clones the first gradient: its layout
      first[i].flag = true;
    }
    if (o.momentum != 0) check_like(momentum_buffers[i], params[i], "momentum_buffer", i);
  }
  run_step(functors::SGDStep{o.lr, o.momentum, o.dampening, o.weight_decay, o.nesterov, o.maximize}, params, grads,
           {o.momentum != 0 ? &momentum_buffers : nullptr}, first);
}

void adam(const std::vector<Tensor>& params, const std::vector<Tensor>& grads, const std::vector<Tensor>& exp_avgs,
          const std::vector<Tensor>& exp_avg_sqs, const std::vector<Tensor>& max_exp_avg_sqs,
          const std::vector<Tensor>& steps, const AdamOptions& o) {
  const size_t n = params.size();
  EMBER_CHECK(grads.size() == n && exp_avgs.size() == n && exp_avg_sqs.size() == n && steps.size() == n &&
                  (!o.amsgrad || max_exp_avg_sqs.size() == n),
              Error, "adam: params, grads and state lists must have the same length");
  std::vector<functors::TensorScalars> per(n);  // sqrt(1 - beta2^t), lr / (1 - beta1^t)
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
    per[i].s = {std::sqrt(1 - std::pow(o.beta2, double(step))), o.lr / (1 - std::pow(o.beta1, double(step)))};
    steps[i].bump_version();
  }
  run_step(functors::AdamStep{o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, o.amsgrad, o.maximize,
                               o.decoupled_weight_decay},
           params, grads, {&exp_avgs, &exp_avg_sqs, o.amsgrad ? &max_exp_avg_sqs : nullptr}, per);
}

}  // namespace ember::optim::functional

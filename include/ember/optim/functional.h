// Multi-tensor optimizer steps (torch.optim's _single_tensor_* math, fused): one pass over every
// parameter's data, grad and state (parallel over the thread pool on the CPU, one kernel on CUDA). Float32/
// float64 contiguous tensors; grads[i] and the state match params[i]. State tensors are updated in place.
#pragma once
#include <vector>

#include "ember/tensor.h"

namespace ember::optim::functional {

struct SGDOptions {
  double lr = 1e-3, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, maximize = false;
};
// momentum_buffers[i] undefined: created from the first (decayed) gradient, as torch.
void sgd(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
         std::vector<Tensor>& momentum_buffers, const SGDOptions& o);

struct AdamOptions {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  bool amsgrad = false, maximize = false, decoupled_weight_decay = false;  // decoupled: AdamW
};
// steps: 0-dim float32 counters, incremented here. max_exp_avg_sqs used only with amsgrad.
void adam(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
          const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
          const std::vector<Tensor>& max_exp_avg_sqs, const std::vector<Tensor>& steps,
          const AdamOptions& o);
// Adam with the step counters and bias corrections on the parameters' device (capturable=True): no host reads, so a
// CUDA graph can capture it. steps: 0-dim float32 counters on each parameter's device (not the CPU).
void adam_capturable(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                     const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                     const std::vector<Tensor>& max_exp_avg_sqs, const std::vector<Tensor>& steps,
                     const AdamOptions& o);

}  // namespace ember::optim::functional

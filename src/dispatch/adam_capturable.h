// Capturable Adam's fused step on a device (src/cuda/optim/adam_capturable.cu): the bias corrections come from each
// parameter's step counter in device memory, so a CUDA graph can replay the step.
#pragma once
#include <vector>

#include "ember/tensor.h"
#include "kernel_table.h"

namespace ember {

struct AdamCapturableArgs {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;
};

namespace kernels {
// Parameters on one device, all contiguous and of one dtype (float32 or float64), as their grads and state
// (max_exp_avg_sqs only with amsgrad); steps: 0-dim float32 counters there. Updates the parameters and the state in
// place and increments the counters.
using AdamCapturableFn = void (*)(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                                  const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                                  const std::vector<Tensor>& max_exp_avg_sqs, const std::vector<Tensor>& steps,
                                  const AdamCapturableArgs& args);
extern KernelTable<AdamCapturableFn> adam_capturable;
}  // namespace kernels

}  // namespace ember

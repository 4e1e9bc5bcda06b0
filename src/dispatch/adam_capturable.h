// Capturable Adam's fused element update on a device (src/cuda/optim/adam_capturable.cu): the bias corrections come
// from the parameter's step counter in device memory (incremented before), so a CUDA graph can replay the step.
#pragma once
#include "ember/tensor.h"
#include "kernel_table.h"

namespace ember {

struct AdamCapturableArgs {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;
};

namespace kernels {
// param, grad, exp_avg, exp_avg_sq and (amsgrad) max_exp_avg_sq: contiguous, of one dtype, float32 or float64;
// step: a 0-dim float32 counter on their device. Updates param and the state in place.
using AdamCapturableFn = void (*)(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                                  const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const Tensor& step,
                                  const AdamCapturableArgs& args);
extern KernelTable<AdamCapturableFn> adam_capturable;
}  // namespace kernels

}  // namespace ember

// The CPU kernels of the nn activations (kernels::activation, kernels::activation_backward); they live in
// src/cpu/unary/ for its -fno-math-errno, so exp/log1p/tanh loops vectorise through libmvec.
#pragma once
#include "../../dispatch/kernels.h"

namespace ember::cpu {

void activation_kernel(Activation op, const TensorIterator& it, const ActivationParams& p);
void activation_backward_kernel(Activation op, const TensorIterator& it, const ActivationParams& p, bool from_result);

}  // namespace ember::cpu

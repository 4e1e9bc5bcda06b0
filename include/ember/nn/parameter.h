// Module parameters (torch.nn.Parameter).
#pragma once
#include "ember/tensor.h"

namespace ember::nn {

// A parameter made from `data`: a new leaf that shares its storage, marked is_parameter (Python
// shows it as an nn.Parameter). Only floating-point parameters may require grad.
Tensor make_parameter(const Tensor& data, bool requires_grad = true);

}  // namespace ember::nn

// Separable gathers (autograd::GatherAxis): reflection / replication pads and nearest / linear upsampling.
#pragma once
#include <vector>

#include "../autograd/formulas.h"

namespace ember::nn::functional {

// x gathered along each axis in turn (untracked: callers record the whole as one node), contiguous.
Tensor gather_axes(const Tensor& x, const std::vector<autograd::GatherAxis>& axes);

}  // namespace ember::nn::functional

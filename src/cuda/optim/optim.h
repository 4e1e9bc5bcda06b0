// The CUDA column of optim_step (src/dispatch/optim_kernels.h): each group's update over all its tensors in one
// multi-tensor launch per dtype.
#pragma once
#include <cstddef>
#include <vector>

#include "../../dispatch/optim_kernels.h"

namespace ember::cuda_backend {

void register_optim_kernels();

// Launches `update` over step.tensors[i] for i in `members`, which share a dtype and a per-tensor flag (so one
// functor type). Defined in multi_tensor.cuh; instantiated per update in sgd.cu, adam.cu and adaptive.cu.
template <typename Step>
void launch_update(const Step& update, const OptimStep& step, const std::vector<size_t>& members);

}  // namespace ember::cuda_backend

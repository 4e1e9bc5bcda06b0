// The CUDA optim_step: the group's tensors split by functor type (dtype and per-tensor flag), one
// multi-tensor launch each; usually one per dtype.
#include <map>
#include <utility>

#include "../runtime.h"
#include "optim.h"

namespace ember::cuda_backend {
namespace {

void optim_step_kernel(const OptimStep& step) {
  DeviceGuard guard(device_index(step.device));
  std::map<std::pair<ScalarType, bool>, std::vector<size_t>> groups;
  for (size_t i = 0; i < step.tensors.size(); ++i)
    groups[{step.tensors[i].dtype, step.tensors[i].scalars.flag}].push_back(i);
  for (const auto& [key, members] : groups)
    std::visit([&](const auto& update) { launch_update(update, step, members); }, step.update);
}

}  // namespace

void register_optim_kernels() { kernels::optim_step.set(DeviceType::CUDA, optim_step_kernel); }

}  // namespace ember::cuda_backend

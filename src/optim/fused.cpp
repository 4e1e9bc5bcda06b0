// A group's fused step through the optim_step kernel table, one call per device its parameters are on.
#include "fused.h"

#include "../dispatch/optim_kernels.h"

namespace ember::optim::detail {

void run_step(const functors::OptimUpdate& update, const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
              std::initializer_list<const std::vector<Tensor>*> states,
              const std::vector<functors::TensorScalars>& scalars) {
  EMBER_CHECK(states.size() <= 3, Error, "optimizer: a fused step takes at most three state streams");
  std::vector<Device> devices;
  for (const Tensor& p : params) {
    EMBER_CHECK(p.dtype() == kFloat32 || p.dtype() == kFloat64, NotImplementedError,
                "optimizer: fused step supports float32 and float64 parameters, got ", p.dtype());
    if (std::ranges::find(devices, p.device()) == devices.end()) devices.push_back(p.device());
  }
  for (Device d : devices) {
    OptimStep step{update, d, {}};
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].device() != d) continue;
      OptimTensor t{{params[i].data_ptr(), grads[i].data_ptr()}, params[i].numel(), params[i].dtype(),
                    scalars.empty() ? functors::TensorScalars{} : scalars[i]};
      size_t j = 2;
      for (const std::vector<Tensor>* list : states) {
        if (list && (*list)[i].defined()) t.data[j] = (*list)[i].data_ptr();
        ++j;
      }
      step.tensors.push_back(t);
    }
    kernels::optim_step[d](step);
  }
  for (const Tensor& p : params) p.bump_version();
  for (const std::vector<Tensor>* list : states)
    if (list)
      for (const Tensor& t : *list)
        if (t.defined()) t.bump_version();
}

}  // namespace ember::optim::detail

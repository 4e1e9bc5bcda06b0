// Shared pieces of the fused optimizer steps: checks, and the step run through the optim_step kernels.
#pragma once
#include <algorithm>
#include <initializer_list>
#include <vector>

#include "../functors/optim.h"
#include "ember/errors.h"
#include "ember/tensor.h"

namespace ember::optim::detail {

// Checks one state tensor against its parameter: same dtype, shape and device.
inline void check_like(const Tensor& t, const Tensor& param, const char* what, size_t i) {
  EMBER_CHECK(t.defined(), Error, "optimizer: ", what, " of parameter ", i, " is missing");
  EMBER_CHECK(t.device() == param.device(), Error, "optimizer: ", what, " of parameter ", i, " is on ", t.device(),
              " but the parameter is on ", param.device());
  EMBER_CHECK(t.dtype() == param.dtype() && std::ranges::equal(t.sizes(), param.sizes()), Error, "optimizer: ", what,
              " of parameter ", i, " has dtype ", t.dtype(), " and shape ", t.sizes(), " but the parameter has ",
              param.dtype(), " and ", param.sizes());
}

// Runs `update` over every parameter in place on its device (one optim_step call per device; float16, bfloat16 and
// strided tensors through contiguous float32 or float64 copies): params[i] with
// grads[i], the state streams a, b, c from `states` in order (a null list or an undefined tensor: no stream)
// and scalars[i] (none when empty). Then bumps the version of every tensor it wrote.
void run_step(const functors::OptimUpdate& update, const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
              std::initializer_list<const std::vector<Tensor>*> states,
              const std::vector<functors::TensorScalars>& scalars = {});

}  // namespace ember::optim::detail

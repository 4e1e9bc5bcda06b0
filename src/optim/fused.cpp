// A group's fused step through the optim_step kernel table, one call per device its parameters are on.
#include "fused.h"

#include <algorithm>

#include "../dispatch/optim_kernels.h"
#include "ember/creation.h"

namespace ember::optim::detail {

namespace {

// The kernels step contiguous float32 or float64 tensors; other parameters (float16 or bfloat16, or strided ones: a
// transposed weight) step on contiguous copies in float32 or their own dtype, written back after.
struct Staging {
  struct Copy {
    Tensor original, copy;
    bool written;
  };
  std::vector<Copy> copies;  // alive until the step is done

  Tensor operator()(const Tensor& t, ScalarType compute, bool writes) {
    if (!t.defined() || (t.dtype() == compute && t.is_contiguous())) return t;
    Tensor copy = empty(t.sizes(), t.options().with_dtype(compute));
    copy.copy_(t);
    copies.push_back({t, copy, writes});
    return copy;
  }
  void write_back() {
    for (Copy& c : copies)
      if (c.written) c.original.copy_(c.copy);
  }
};

ScalarType compute_dtype(const Tensor& p) {
  EMBER_CHECK(is_floating_point(p.dtype()), NotImplementedError,
              "optimizer: the step supports floating-point parameters, got ", p.dtype());
  return p.dtype() == kFloat64 ? kFloat64 : kFloat32;
}

}  // namespace

void run_step(const functors::OptimUpdate& update, const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
              std::initializer_list<const std::vector<Tensor>*> states,
              const std::vector<functors::TensorScalars>& scalars) {
  EMBER_CHECK(states.size() <= 3, Error, "optimizer: a fused step takes at most three state streams");
  Staging stage;
  std::vector<Device> devices;
  std::vector<OptimTensor> tensors;
  for (size_t i = 0; i < params.size(); ++i) {
    ScalarType compute = compute_dtype(params[i]);
    Tensor p = stage(params[i], compute, true), g = stage(grads[i], compute, false);
    OptimTensor t{{p.data_ptr(), g.data_ptr()}, p.numel(), compute,
                  scalars.empty() ? functors::TensorScalars{} : scalars[i]};
    size_t j = 2;
    for (const std::vector<Tensor>* list : states) {
      if (list && (*list)[i].defined()) t.data[j] = stage((*list)[i], compute, true).data_ptr();
      ++j;
    }
    tensors.push_back(t);
    if (std::ranges::find(devices, p.device()) == devices.end()) devices.push_back(p.device());
  }
  for (Device d : devices) {
    OptimStep step{update, d, {}};
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].device() == d) step.tensors.push_back(tensors[i]);
    kernels::optim_step[d](step);
  }
  stage.write_back();
  for (const Tensor& p : params) p.bump_version();
  for (const std::vector<Tensor>* list : states)
    if (list)
      for (const Tensor& t : *list)
        if (t.defined()) t.bump_version();
}

}  // namespace ember::optim::detail

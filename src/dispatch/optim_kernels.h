// The optimizers' fused steps as a kernel family: one call updates every tensor of a group on one device in
// place, each element through the group's update functor (src/functors/optim.h). src/optim fills the CPU
// column, src/cuda/optim the CUDA one.
#pragma once
#include <array>
#include <vector>

#include "../functors/optim.h"
#include "ember/device.h"
#include "ember/dtype.h"
#include "kernel_table.h"

namespace ember {

// One tensor of a step: its contiguous streams (param, grad, then the update's state streams a, b, c; null
// where the update has none), element count and dtype (float32 or float64), and its host-computed scalars.
struct OptimTensor {
  std::array<void*, 5> data{};
  int64_t numel = 0;
  ScalarType dtype = kFloat32;
  functors::TensorScalars scalars;
};

// A group's step on one device: the update (which optimizer, its options) and the tensors there.
struct OptimStep {
  functors::OptimUpdate update;
  Device device;
  std::vector<OptimTensor> tensors;
};

namespace kernels {
using OptimStepFn = void (*)(const OptimStep& step);
extern KernelTable<OptimStepFn> optim_step;
}  // namespace kernels

}  // namespace ember

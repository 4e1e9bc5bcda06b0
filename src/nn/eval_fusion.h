// Sequential's fused inference path (issue 11): see eval_fusion.cpp.
#pragma once
#include <memory>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

using SequenceItems = std::vector<std::unique_ptr<NamedSlots<ModulePtr>::Item>>;

// Runs the fusable modules of `items` from `first` on x (x becomes their output) and returns how many there were;
// 0 (x untouched) where no fusable run starts there.
size_t run_fused_eval(const SequenceItems& items, size_t first, Tensor& x);

}  // namespace ember::nn

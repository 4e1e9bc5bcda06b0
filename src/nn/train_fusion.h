// Sequential's fused training path (issues 11 and 13): see train_fusion.cpp.
#pragma once
#include "eval_fusion.h"

namespace ember::nn {

// Runs the fusable training run of `items` from `first` on x (x becomes its output) and returns how many modules it
// covered; 0 (x untouched) where none starts there.
size_t run_fused_train(const SequenceItems& items, size_t first, Tensor& x);

}  // namespace ember::nn

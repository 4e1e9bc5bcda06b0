// Inference chains: convolutions (a BatchNorm folded into weight and bias, a ReLU fused in) and max poolings run
// one after another in oneDNN's blocked layout, reordered only at the chain's two ends (eval_chain_onednn.cpp;
// nn::Sequential's fused eval path, src/nn/eval_fusion.cpp).
#pragma once
#include <vector>

#include "../../dispatch/kernels.h"

namespace ember::cpu {

struct ChainStage {
  bool pool = false;                  // a max pooling (dilation 1), else a convolution
  Tensor weight, bias;                // convolution: float32, contiguous (O, I / groups, *K); bias may be undefined
  ConvGeometry conv;                  // convolution
  bool relu = false;                  // convolution: max(y, 0) of its output
  DimVector kernel, stride, padding;  // pooling
  DimVector out;                      // the stage's output spatial sizes
};

// Runs the stages on `input` (float32, contiguous (N, C, *S)) into `output` (contiguous, the last stage's size),
// each thread carrying its part of the batch through every stage.
void onednn_eval_chain(const Tensor& input, const std::vector<ChainStage>& stages, const Tensor& output);

}  // namespace ember::cpu

// A planned convolution and torch's choice of its result's layout (nn_conv_layout.cpp).
#pragma once
#include "../dispatch/kernels.h"

namespace ember::nn::functional {

// A convolution fully described: geometry (left padding), transposed or not, output padding and the output's spatial
// sizes.
struct Conv {
  ConvGeometry g;
  bool transposed = false;
  DimVector output_padding, out_spatial;
};

// Whether torch 2.13 runs a CPU convolution through mkldnn: conv_uses_mkldnn's rule, but for an unstrided, undilated
// 1x1 convolution (a 1-d one counts its kernel as 1 x K) of a batch under 16 only with more than one thread, and never
// for a transposed one whose output padding reaches its stride.
bool takes_mkldnn(const Tensor& input, const Tensor& weight, const Conv& c);

// Whether torch 2.13 gives the convolution of `input` and `weight` a channels-last result.
bool channels_last_output(const Tensor& input, const Tensor& weight, const Conv& c);

}  // namespace ember::nn::functional

// CPU convolution kernels (kernels::conv_forward, conv_backward_data, conv_backward_weights, conv_backward): float32
// on oneDNN (conv_onednn.cpp), other dtypes by im2col and Ember's GEMM (conv_kernel.cpp).
#pragma once
#include "../../dispatch/kernels.h"

namespace ember::cpu {

void conv_forward_kernel(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& output,
                         const ConvGeometry& g);
void conv_backward_data_kernel(const Tensor& grad_output, const Tensor& weight, const Tensor& grad_input,
                               const ConvGeometry& g);
void conv_backward_weights_kernel(const Tensor& grad_output, const Tensor& input, const Tensor& grad_weight,
                                  const Tensor& grad_bias, const ConvGeometry& g);
void conv_backward_kernel(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                          const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                          const ConvGeometry& g);

// Whether a float32 tensor holds no inf or nan. oneDNN skips zero padding, so a non-finite operand must take a path
// that multiplies it (torch's nan pattern).
bool all_finite_float32(const Tensor& t);
// The largest |element| of a float32 tensor, +inf when it holds an inf or nan (a branch-free scan of the bits).
float max_abs_float32(const Tensor& t);

void onednn_conv_forward(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& output,
                         const ConvGeometry& g);
// The gradients whose tensors are defined: grad_input (from grad_output and weight), grad_weight and grad_bias
// (from grad_output and input).
void onednn_conv_backward(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                          const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                          const ConvGeometry& g);

}  // namespace ember::cpu

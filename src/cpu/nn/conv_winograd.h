// Winograd F(2x2, 3x3) convolutions of the training chains (train_chain.h): activations and gradients in nChw8c,
// weights plain. See conv_winograd.cpp for the algorithm, where it is used and the measured figures.
#pragma once
#include "train_chain.h"

namespace ember::cpu {

// Whether Winograd runs unit u's passes: u.winograd set, 3x3 kernel, stride 1, dilation 1, padding at most 2, an
// nChw8c source, and a shape where it measured faster than oneDNN's direct kernels.
bool winograd_fits(const TrainConv& u);

// The passes, as train_conv_forward / train_conv_backward (grad_weight defined; grad_bias may be undefined). Each
// returns false where a result is not finite (its transforms would turn an inf into nan where the direct
// convolution keeps it): the caller then runs the direct kernel.
bool winograd_forward(const TrainConv& u, const Tensor& out);
bool winograd_backward_data(const TrainConv& u, const Tensor& grad_out, const Tensor& grad_src);
bool winograd_backward_weights(const TrainConv& u, const Tensor& grad_out, const Tensor& grad_weight,
                               const Tensor& grad_bias);

}  // namespace ember::cpu

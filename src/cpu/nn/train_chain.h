// Training chains (issue 11/13): Conv2d -> BatchNorm2d (batch statistics) -> ReLU units, each optionally followed by
// a 2x2/2 max pooling (and Dropout2d's per-channel scaling), run with the activations in oneDNN's nChw8c layout between the layers (no reorder inside the
// chain) and BatchNorm's passes fused with ReLU's. nn::Sequential's fused training path (src/nn/train_fusion.cpp)
// records the whole chain as one autograd node. Activations are float32 buffers (Tensors of N*C*H*W floats) in
// nChw8c: element (n, c, y, x) at ((n * C / 8 + c / 8) * H * W + y * W + x) * 8 + c % 8; every C a multiple of 8.
#pragma once
#include <vector>

#include "../../dispatch/kernels.h"

namespace ember::cpu {

// One unit's convolution: its input `src` (the chain's input in plain NCHW for the first unit, else the previous
// unit's output in nChw8c), output nChw8c.
struct TrainConv {
  Tensor weight, bias;           // bias may be undefined
  ConvGeometry geometry;         // groups 1
  Tensor src;
  bool src_blocked = false;
  DimVector src_dims, out_dims;  // (N, C, H, W) of the input and the output
  bool winograd = false;         // Winograd allowed where it fits (conv_winograd.h)
};

// The convolution on c.src into `out` (nChw8c), each thread its part of the batch.
void train_conv_forward(const TrainConv& c, const Tensor& out);
// Its gradients from grad_out (nChw8c): grad_src (c.src's layout; undefined: not wanted), grad_weight and grad_bias
// (plain; undefined: not wanted).
void train_conv_backward(const TrainConv& c, const Tensor& grad_out, const Tensor& grad_src, const Tensor& grad_weight,
                         const Tensor& grad_bias);

// Between plain NCHW and nChw8c (C a multiple of 8).
void to_blocked(const Tensor& plain, const Tensor& blocked);
void from_blocked(const Tensor& blocked, const Tensor& plain);

// nChw8c kernels over (N, C, S = H * W):
// per channel mean and biased variance of x (double sums), as batch_norm's statistics;
void blocked_stats(const Tensor& x, DimVector dims, const Tensor& mean, const Tensor& var);
// out = relu(x * scale + shift) per channel (fused multiply-add; nan stays nan);
void blocked_affine_relu(const Tensor& x, DimVector dims, const Tensor& scale, const Tensor& shift, const Tensor& out);
// the same followed by max pooling of 2x2 windows at stride 2 into out (N, C, H / 2, W / 2): each window's first
// largest value, its last nan if any (max_pool2d's rule), without writing the activation;
void blocked_affine_relu_pool(const Tensor& x, DimVector dims, const Tensor& scale, const Tensor& shift,
                              const Tensor& out);
// x *= mask per (sample, channel) (mask: float32 (N, C), Dropout2d's scaled noise);
void blocked_scale_planes(const Tensor& x, DimVector dims, const Tensor& mask);
// the gradients, g reaching ReLU's output: full size, or when `pooled` the pooling's output gradient (each window's
// to its largest element, found again from x). With g' = (y <= 0 ? 0 : g), y = x * scale + shift recomputed as the
// forward did (ReLU's gradient on its result): sum_g = sum of g', dot = sum of g' * (x - mean);
void blocked_relu_grad_sums(const Tensor& g, bool pooled, const Tensor& x, DimVector dims, const Tensor& scale,
                            const Tensor& shift, const Tensor& mean, const Tensor& sum_g, const Tensor& dot);
// and out = k * g' + b * x + e per channel (out may be g when not pooled).
void blocked_relu_bn_grad(const Tensor& g, bool pooled, const Tensor& x, DimVector dims, const Tensor& scale,
                          const Tensor& shift, const Tensor& k, const Tensor& b, const Tensor& e, const Tensor& out);

}  // namespace ember::cpu

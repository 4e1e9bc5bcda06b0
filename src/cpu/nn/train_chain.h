// Training chains (issue 11/13): Conv2d -> BatchNorm2d (batch statistics) -> ReLU units, optionally ended by a
// 2x2/2 max pooling, run with the activations in oneDNN's nChw8c layout between the layers (no reorder inside the
// chain) and BatchNorm's passes fused with ReLU's. nn::Sequential's fused training path (src/nn/train_fusion.cpp)
// records the whole chain as one autograd node. Activations are float32 buffers (Tensors of N*C*H*W floats) in
// nChw8c: element (n, c, y, x) at ((n * C / 8 + c / 8) * H * W + y * W + x) * 8 + c % 8; every C a multiple of 8.
#pragma once
#include <vector>

#include "../../dispatch/kernels.h"

namespace ember::cpu {

// One unit's tensors: its convolution's input (`src`: the chain's input in plain NCHW for the first unit, else the
// previous unit's `act`), the convolution's output `conv` and the BatchNorm + ReLU output `act` (both nChw8c), and
// the batch statistics.
struct TrainUnit {
  Tensor weight, bias;          // the convolution's (bias may be undefined)
  ConvGeometry geometry;        // groups 1
  Tensor src;                   // the input as the convolution read it (plain or nChw8c, see src_blocked)
  bool src_blocked = false;
  DimVector src_dims, out_dims;  // (N, C, H, W) of the input and of conv/act
  Tensor conv, act;             // nChw8c buffers
  Tensor mean, invstd;          // float32 (C): the batch statistics and 1 / sqrt(var + eps)
};

// The convolution of unit u on u.src into u.conv (nChw8c), each thread its part of the batch.
void train_conv_forward(TrainUnit& u);
// Its gradients from grad_conv (nChw8c): grad_src (u.src's layout; undefined: not wanted), grad_weight and grad_bias
// (plain; undefined: not wanted).
void train_conv_backward(const TrainUnit& u, const Tensor& grad_conv, const Tensor& grad_src,
                         const Tensor& grad_weight, const Tensor& grad_bias);

// Between plain NCHW and nChw8c (C a multiple of 8).
void to_blocked(const Tensor& plain, const Tensor& blocked);
void from_blocked(const Tensor& blocked, const Tensor& plain);

// nChw8c kernels over (N, C, S = H * W):
// per channel mean and biased variance of x (double sums), as batch_norm's statistics;
void blocked_stats(const Tensor& x, DimVector dims, const Tensor& mean, const Tensor& var);
// out = relu(x * scale + shift) per channel (fused multiply-add; nan stays nan);
void blocked_affine_relu(const Tensor& x, DimVector dims, const Tensor& scale, const Tensor& shift, const Tensor& out);
// with g' = (act <= 0 ? 0 : g) (ReLU's gradient): sum_g = sum of g', dot = sum of g' * (x - mean);
void blocked_relu_grad_sums(const Tensor& g, const Tensor& act, const Tensor& x, DimVector dims, const Tensor& mean,
                            const Tensor& sum_g, const Tensor& dot);
// out = k * g' + b * x + e per channel (out may be g).
void blocked_relu_bn_grad(const Tensor& g, const Tensor& act, const Tensor& x, DimVector dims, const Tensor& k,
                          const Tensor& b, const Tensor& e, const Tensor& out);
// 2x2 windows at stride 2 of x (N, C, H, W) into out (N, C, H / 2, W / 2), both nChw8c: the window's first largest
// value, its last nan if any (max_pool2d's rule); the backward puts each g at that element, zeros elsewhere.
void blocked_max_pool(const Tensor& x, DimVector dims, const Tensor& out);
void blocked_max_pool_backward(const Tensor& g, const Tensor& x, DimVector dims, const Tensor& grad_x);

}  // namespace ember::cpu

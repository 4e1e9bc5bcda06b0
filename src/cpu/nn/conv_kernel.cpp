// The CPU convolution kernels: float32 goes to oneDNN; other dtypes (float64, integers) unfold each sample's input
// into columns (im2col) and multiply with Ember's GEMM, group by group; backward data folds the product back
// (col2im). One loop nest serves 1 to 3 spatial dims (missing leading dims have size 1).
#include "conv_kernel.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "../gemm.h"
#include "ember/creation.h"
#include "ember/nn/conv.h"
#include "ember/ops.h"
#include "ember/parallel.h"
#include "ember/reduce.h"

namespace ember::cpu {

namespace {

// A convolution's sizes over exactly three spatial dims.
struct Geometry3 {
  int64_t in[3], out[3], k[3], stride[3], pad[3], dil[3];
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t k_size() const { return k[0] * k[1] * k[2]; }
};

Geometry3 geometry3(const Tensor& input, const Tensor& weight, const Tensor& output, const ConvGeometry& g) {
  Geometry3 r;
  size_t n = g.stride.size(), lead = 3 - n;
  for (size_t i = 0; i < 3; ++i) {
    bool real = i >= lead;
    int64_t d = int64_t(i - lead) + 2;
    r.in[i] = real ? input.size(d) : 1;
    r.out[i] = real ? output.size(d) : 1;
    r.k[i] = real ? weight.size(d) : 1;
    r.stride[i] = real ? g.stride[i - lead] : 1;
    r.pad[i] = real ? g.padding[i - lead] : 0;
    r.dil[i] = real ? g.dilation[i - lead] : 1;
  }
  return r;
}

// Calls fn(column, input offset or -1 for padding) for every element of the (C * K, O) column matrix in order.
template <typename Fn>
void for_each_column(const Geometry3& g, int64_t channels, Fn&& fn) {
  int64_t col = 0;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
      for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
        for (int64_t k2 = 0; k2 < g.k[2]; ++k2)
          for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
            int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dil[0];
            for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
              int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dil[1];
              bool inside = i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1];
              int64_t base = ((c * g.in[0] + i0) * g.in[1] + i1) * g.in[2];
              for (int64_t o2 = 0; o2 < g.out[2]; ++o2, ++col) {
                int64_t i2 = o2 * g.stride[2] - g.pad[2] + k2 * g.dil[2];
                fn(col, inside && i2 >= 0 && i2 < g.in[2] ? base + i2 : -1);
              }
            }
          }
}

// One sample's columns for one group: (C_g * K, O).
void im2col(const Tensor& input, const Tensor& col, const Geometry3& g) {
  visit_dtype(input.dtype(), [&]<typename T>(T) {
    const T* in = input.data_ptr<T>();
    T* out = col.data_ptr<T>();
    for_each_column(g, input.size(0), [&](int64_t c, int64_t i) { out[c] = i < 0 ? T(0) : in[i]; });
  });
}

// The adjoint: grad_input (C_g, *I) += the columns folded back.
void col2im(const Tensor& col, const Tensor& grad_input, const Geometry3& g) {
  visit_dtype(col.dtype(), [&]<typename T>(T) {
    const T* in = col.data_ptr<T>();
    T* out = grad_input.data_ptr<T>();
    for_each_column(g, grad_input.size(0), [&](int64_t c, int64_t i) {
      if (i >= 0) out[i] = T(out[i] + in[c]);
    });
  });
}

// Group gi's slice of dim `dim` (of `groups` equal parts).
Tensor group(const Tensor& t, int64_t dim, int64_t groups, int64_t gi) {
  int64_t part = t.size(dim) / groups;
  return t.narrow(dim, gi * part, part);
}

// Sample n of group gi of an activation (N, C, *S) as a (C_g, prod S) matrix.
Tensor sample_matrix(const Tensor& t, int64_t n, int64_t groups, int64_t gi) {
  Tensor s = group(t.select(0, n), 0, groups, gi);
  return s.reshape({s.size(0), -1});
}

// Whether a float32 convolution of activation `x` (the forward input, or the transposed one's) goes to oneDNN: where
// torch runs its slow im2col path instead, zero padding times an inf or nan weight gives nan (oneDNN skips the
// padding), so such calls with a non-finite operand take the im2col path too. The scan is branch-free and reads at
// most 20480 activation elements (larger ones are mkldnn's in torch as well) and the weight.
bool takes_onednn(const Tensor& x, const Tensor& weight, const ConvGeometry& g) {
  if (x.dtype() != kFloat32) return false;
  if (nn::functional::conv_uses_mkldnn(x.dtype(), x.size(0), x.numel(), weight, g.groups)) return true;
  return all_finite_float32(x) && all_finite_float32(weight);
}

// The weight gradient of a float32 convolution with one input channel (an image model's first layer) skips oneDNN:
// its jit:avx2 backward-weights kernel ran 1->16 channels, 3x3, batch 128 of 28x28 at ~1/13 of its forward's
// GFLOP/s (~5 ms of the main job's 89 ms train step, 1 thread). Here each thread sums its samples' products of
// grad_output (Co, O) and the im2col columns (K, O) with the GEMM. A non-finite grad_output keeps oneDNN, which skips
// the padding (the columns' zeros would turn inf into nan): it makes some of the GEMM's sums inf or nan (each output
// position meets a real input or only padding zeros), so only a non-finite result is computed again by oneDNN. That
// check reads the weight gradient instead of grad_output (~0.4 ms of the main job's train step, 1 thread).
bool single_channel_weights(const Tensor& input, const ConvGeometry& g) {
  return input.dtype() == kFloat32 && g.groups == 1 && input.size(1) == 1 && input.size(0) >= get_num_threads();
}

void single_channel_backward_weights(const Tensor& grad_output, const Tensor& input, const Tensor& grad_weight,
                                     const ConvGeometry& cg) {
  Geometry3 g = geometry3(input, grad_weight, grad_output, cg);
  int64_t batch = input.size(0), parts = std::min<int64_t>(get_num_threads(), batch);
  Tensor gw = grad_weight.view({grad_weight.size(0), -1});
  std::vector<Tensor> sums(static_cast<size_t>(parts));
  parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      Tensor col = empty({g.k_size(), g.out_size()}, input.options());
      sums[size_t(p)] = p == 0 ? gw : empty_like(gw);
      for (int64_t n = p * batch / parts, end = (p + 1) * batch / parts; n < end; ++n) {
        im2col(input.select(0, n), col, g);
        gemm(sample_matrix(grad_output, n, 1, 0), col.t(), sums[size_t(p)], 1, n == p * batch / parts ? 0 : 1);
      }
    }
  });
  for (int64_t p = 1; p < parts; ++p) gw.add_(sums[size_t(p)]);
}

void bias_gradient(const Tensor& grad_output, const Tensor& grad_bias) {
  DimVector dims{0};
  for (int64_t d = 2; d < grad_output.dim(); ++d) dims.push_back(d);
  Tensor gb = grad_bias;
  gb.copy_(sum(grad_output, dims));
}

// Whether activation `big` reaches a stride or more past the last window that gives `small` (a transposed
// convolution's output padding of at least its stride, allowed under a larger dilation): oneDNN has no descriptor for
// such a geometry (torch runs its slow path), so the im2col kernels take it.
bool beyond_last_window(const Tensor& small, const Tensor& weight, const Tensor& big, const ConvGeometry& g) {
  for (size_t i = 0; i < g.stride.size(); ++i) {
    int64_t d = int64_t(i) + 2;
    int64_t reach = (small.size(d) - 1) * g.stride[i] + g.dilation[i] * (weight.size(d) - 1) + 1;
    if (big.size(d) + 2 * g.padding[i] - reach >= g.stride[i]) return true;
  }
  return false;
}

}  // namespace

float max_abs_float32(const Tensor& t) {
  Tensor c = t.contiguous();
  const uint32_t* bits = static_cast<const uint32_t*>(c.data_ptr());
  uint32_t largest = 0;  // without the sign bit, finite magnitudes order as their bits, and inf and nan above them
  for (int64_t i = 0, n = c.numel(); i < n; ++i) largest = std::max(largest, bits[i] & 0x7fffffffu);
  if (largest >= 0x7f800000u) return std::numeric_limits<float>::infinity();
  float value;
  std::memcpy(&value, &largest, sizeof(value));
  return value;
}

bool all_finite_float32(const Tensor& t) { return max_abs_float32(t) < std::numeric_limits<float>::infinity(); }

void conv_forward_kernel(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& output,
                         const ConvGeometry& cg) {
  if (takes_onednn(input, weight, cg) && !beyond_last_window(output, weight, input, cg)) {
    return onednn_conv_forward(input, weight, bias, output, cg);
  }
  Geometry3 g = geometry3(input, weight, output, cg);
  Tensor w = weight.reshape({weight.size(0), -1});
  Tensor col = empty({input.size(1) / cg.groups * g.k_size(), g.out_size()}, input.options());
  for (int64_t n = 0; n < input.size(0); ++n) {
    for (int64_t gi = 0; gi < cg.groups; ++gi) {
      im2col(group(input.select(0, n), 0, cg.groups, gi), col, g);
      gemm(group(w, 0, cg.groups, gi), col, sample_matrix(output, n, cg.groups, gi), 1, 0);
    }
  }
  if (bias.defined()) {
    DimVector shape(size_t(output.dim()), 1);
    shape[1] = bias.size(0);
    Tensor out = output;
    out.add_(bias.view(shape));
  }
}

void conv_backward_data_kernel(const Tensor& grad_output, const Tensor& weight, const Tensor& grad_input,
                               const ConvGeometry& cg) {
  if (takes_onednn(grad_output, weight, cg) && !beyond_last_window(grad_output, weight, grad_input, cg)) {
    return onednn_conv_backward(grad_output, Tensor(), weight, grad_input, Tensor(), Tensor(), cg);
  }
  Geometry3 g = geometry3(grad_input, weight, grad_output, cg);
  Tensor w = weight.reshape({weight.size(0), -1});
  Tensor col = empty({grad_input.size(1) / cg.groups * g.k_size(), g.out_size()}, grad_output.options());
  Tensor gi_all = grad_input;
  gi_all.zero_();
  for (int64_t n = 0; n < grad_output.size(0); ++n) {
    for (int64_t gi = 0; gi < cg.groups; ++gi) {
      gemm(group(w, 0, cg.groups, gi).t(), sample_matrix(grad_output, n, cg.groups, gi), col, 1, 0);
      col2im(col, group(grad_input.select(0, n), 0, cg.groups, gi), g);
    }
  }
}

void conv_backward_weights_kernel(const Tensor& grad_output, const Tensor& input, const Tensor& grad_weight,
                                  const Tensor& grad_bias, const ConvGeometry& cg) {
  if (single_channel_weights(input, cg)) {
    single_channel_backward_weights(grad_output, input, grad_weight, cg);
    if (all_finite_float32(grad_weight)) {
      if (grad_bias.defined()) bias_gradient(grad_output, grad_bias);
      return;
    }
  }
  if (input.dtype() == kFloat32 && !beyond_last_window(grad_output, grad_weight, input, cg)) {
    return onednn_conv_backward(grad_output, input, Tensor(), Tensor(), grad_weight, grad_bias, cg);
  }
  Geometry3 g = geometry3(input, grad_weight, grad_output, cg);
  Tensor gw = grad_weight.view({grad_weight.size(0), -1});
  Tensor col = empty({input.size(1) / cg.groups * g.k_size(), g.out_size()}, input.options());
  for (int64_t n = 0; n < input.size(0); ++n) {
    for (int64_t gi = 0; gi < cg.groups; ++gi) {
      im2col(group(input.select(0, n), 0, cg.groups, gi), col, g);
      gemm(sample_matrix(grad_output, n, cg.groups, gi), col.t(), group(gw, 0, cg.groups, gi), 1, n == 0 ? 0 : 1);
    }
  }
  if (grad_bias.defined()) bias_gradient(grad_output, grad_bias);
}

void conv_backward_kernel(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                          const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                          const ConvGeometry& cg) {
  if (grad_weight.defined() && single_channel_weights(input, cg)) {
    if (grad_input.defined()) onednn_conv_backward(grad_output, input, weight, grad_input, Tensor(), Tensor(), cg);
    return conv_backward_weights_kernel(grad_output, input, grad_weight, grad_bias, cg);
  }
  if (input.dtype() == kFloat32) {
    return onednn_conv_backward(grad_output, input, weight, grad_input, grad_weight, grad_bias, cg);
  }
  if (grad_input.defined()) conv_backward_data_kernel(grad_output, weight, grad_input, cg);
  if (grad_weight.defined()) conv_backward_weights_kernel(grad_output, input, grad_weight, grad_bias, cg);
}

}  // namespace ember::cpu

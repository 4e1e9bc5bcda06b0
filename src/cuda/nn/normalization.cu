// Normalisation kernels on CUDA over contiguous (N, C, S) tensors, as the CPU's (src/cpu/nn/normalization_kernel.cpp):
// per-channel statistics and gradient sums with a block per channel summing in double, and the per-element affine
// maps as grid-stride passes.
#include <cmath>

#include "../elementwise.cuh"
#include "../reduce_common.cuh"
#include "nn_kernels.h"

namespace ember::cuda_backend {

namespace {

constexpr int kChannelThreads = 256;

// Element i (of n * s) of channel c.
struct Channel {
  int64_t C, S;
  __device__ int64_t at(int64_t c, int64_t i) const {
    int64_t n = i / S;
    return (n * C + c) * S + (i - n * S);
  }
};

// Runs body<T>() for x's dtype (float or double).
template <typename F>
void visit_float(const Tensor& x, F&& body) {
  if (x.dtype() == kFloat64) body.template operator()<double>();
  else body.template operator()<float>();
}

template <typename T>
__global__ void __launch_bounds__(kChannelThreads) stats(const T* x, Channel ch, int64_t count, T* mean, T* var) {
  __shared__ double smem[32];
  const int64_t c = blockIdx.x;
  const T x0 = count > 0 ? x[ch.at(c, 0)] : T(0);
  double sum = 0;
  bool same = true;
  for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
    T v = x[ch.at(c, i)];
    sum += double(v);
    same &= v == x0;  // NaN is not constant
  }
  if (__syncthreads_and(same) && count > 0) {  // a constant channel: its mean exactly, as torch's double sums give it
    if (threadIdx.x == 0) mean[c] = x0, var[c] = T(0);
    return;
  }
  const T m = T(block_all(sum, 0.0, Add{}, smem) / double(count));
  double sq = 0;
  for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
    T v = x[ch.at(c, i)] - m;
    sq += double(v * v);
  }
  sq = block_fold(sq, 0.0, Add{}, smem);
  if (threadIdx.x == 0) mean[c] = m, var[c] = T(sq / double(count));
}

template <typename T>
__global__ void __launch_bounds__(kChannelThreads) grad_sums(const T* dy, const T* x, const T* w, Channel ch,
                                                             int64_t count, T* sum_dy, T* sum_dy_x) {
  __shared__ double smem[32];
  const int64_t c = blockIdx.x;
  double s1 = 0, s2 = 0;
  for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
    int64_t at = ch.at(c, i);
    T g = w ? T(dy[at] * w[at % ch.S]) : dy[at];
    s1 += double(g);
    s2 += double(g * x[at]);
  }
  s1 = block_fold(s1, 0.0, Add{}, smem);
  s2 = block_fold(s2, 0.0, Add{}, smem);
  if (threadIdx.x == 0) sum_dy[c] = T(s1), sum_dy_x[c] = T(s2);
}

// y = ((x - mean[c]) * scale[c] + shift[c]) * w[s] + b[s], the multiply-adds fused.
template <typename T>
__global__ void affine(const T* x, const T* mean, const T* scale, const T* shift, const T* w, const T* b, int64_t total,
                       int64_t C, int64_t S, T* y) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t r = i / S, s = i - r * S, c = r % C;
    T v = std::fma(x[i] - (mean ? mean[c] : T(0)), scale[c], shift ? shift[c] : T(0));
    if (w && b) v = std::fma(v, w[s], b[s]);
    else if (w) v = v * w[s];
    else if (b) v = v + b[s];
    y[i] = v;
  }
}

// dx = a[c] * dy * w[s] + b[c] * x + e[c].
template <typename T>
__global__ void grad_input(const T* dy, const T* x, const T* w, const T* a, const T* b, const T* e, int64_t total,
                           int64_t C, int64_t S, T* dx) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t r = i / S, s = i - r * S, c = r % C;
    T g = w ? a[c] * dy[i] * w[s] : a[c] * dy[i];
    dx[i] = g + b[c] * x[i] + e[c];
  }
}

unsigned channel_blocks(const Tensor& x) { return unsigned(x.sizes()[1]); }

}  // namespace

void norm_stats_kernel(const Tensor& x, const Tensor& mean, const Tensor& var) {
  const int64_t N = x.sizes()[0], C = x.sizes()[1], S = x.sizes()[2];
  if (C == 0) return;
  DeviceGuard guard(device_index(x.device()));
  visit_float(x, [&]<typename T>() {
    stats<T><<<channel_blocks(x), kChannelThreads, 0, current_stream()>>>(
        x.data_ptr<T>(), Channel{C, S}, N * S, mean.data_ptr<T>(), var.data_ptr<T>());
    EMBER_CUDA_LAUNCH();
  });
}

void norm_affine_kernel(const Tensor& x, const Tensor& mean, const Tensor& scale, const Tensor& shift,
                        const Tensor& w, const Tensor& b, const Tensor& y) {
  const int64_t total = x.numel();
  if (total == 0) return;
  DeviceGuard guard(device_index(x.device()));
  visit_float(x, [&]<typename T>() {
    affine<T><<<grid_for(total, 1), kBlockThreads, 0, current_stream()>>>(
        x.data_ptr<T>(), data_or_null<T>(mean), scale.data_ptr<T>(), data_or_null<T>(shift), data_or_null<T>(w),
        data_or_null<T>(b), total, x.sizes()[1], x.sizes()[2], y.data_ptr<T>());
    EMBER_CUDA_LAUNCH();
  });
}

void norm_grad_sums_kernel(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& sum_dy,
                           const Tensor& sum_dy_x) {
  const int64_t N = x.sizes()[0], C = x.sizes()[1], S = x.sizes()[2];
  if (C == 0) return;
  DeviceGuard guard(device_index(x.device()));
  visit_float(x, [&]<typename T>() {
    grad_sums<T><<<channel_blocks(x), kChannelThreads, 0, current_stream()>>>(
        dy.data_ptr<T>(), x.data_ptr<T>(), data_or_null<T>(w), Channel{C, S}, N * S, sum_dy.data_ptr<T>(),
        sum_dy_x.data_ptr<T>());
    EMBER_CUDA_LAUNCH();
  });
}

void norm_grad_input_kernel(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& a, const Tensor& b,
                            const Tensor& e, const Tensor& dx) {
  const int64_t total = x.numel();
  if (total == 0) return;
  DeviceGuard guard(device_index(x.device()));
  visit_float(x, [&]<typename T>() {
    grad_input<T><<<grid_for(total, 1), kBlockThreads, 0, current_stream()>>>(
        dy.data_ptr<T>(), x.data_ptr<T>(), data_or_null<T>(w), a.data_ptr<T>(), b.data_ptr<T>(), e.data_ptr<T>(),
        total, x.sizes()[1], x.sizes()[2], dx.data_ptr<T>());
    EMBER_CUDA_LAUNCH();
  });
}

}  // namespace ember::cuda_backend

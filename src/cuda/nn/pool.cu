// Pooling on CUDA over contiguous (P, H, W) planes, as the CPU kernels (src/cpu/nn/pool_kernel.cpp): a thread per
// output for the forwards; avg backward gathers per input element (the outputs whose windows hold it, in the CPU's
// order: deterministic); max backward scatters with atomicAdd, windows may overlap. The windows (PoolAxis) travel
// to the device as one int64 tensor.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "../../functors/compute.h"
#include "../elementwise.cuh"
#include "ember/creation.h"
#include "nn_kernels.h"

namespace ember::cuda_backend {

namespace {

template <typename T>
using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, functors::Compute<T>>;

// One axis's windows on the device: window o holds taps start[o] + j * step, j < count[o]; span[o] is the average's
// divisor factor. For the average's backward, the windows that may hold input element i are [lo[i], hi[i]).
struct Axis {
  const int64_t *start, *count, *span, *lo, *hi;
  int64_t step;
  __device__ bool holds(int64_t o, int64_t i) const { return i >= start[o] && i < start[o] + count[o]; }
};

// Both axes' windows copied to `device` (`keep` holds the copy); with `inputs` (H, W), each input element's window
// range too.
std::pair<Axis, Axis> device_axes(const PoolAxis& h, const PoolAxis& w, Device device, Tensor& keep,
                                  const std::pair<int64_t, int64_t>* inputs = nullptr) {
  std::vector<int64_t> packed;
  std::vector<size_t> at;  // each array's offset in `packed`
  auto add = [&](const std::vector<int64_t>& v) {
    at.push_back(packed.size());
    packed.insert(packed.end(), v.begin(), v.end());
  };
  auto ranges = [&](const PoolAxis& a, int64_t in) {
    std::vector<int64_t> lo(size_t(in), 0), hi(size_t(in), 0);
    for (size_t o = 0; o < a.start.size(); ++o) {
      for (int64_t i = a.start[o]; i < a.start[o] + a.count[o]; ++i) {
        if (hi[size_t(i)] == 0) lo[size_t(i)] = int64_t(o);
        hi[size_t(i)] = int64_t(o) + 1;
      }
    }
    add(lo);
    add(hi);
  };
  for (const PoolAxis* a : {&h, &w}) {
    add(a->start);
    add(a->count);
    add(a->span);
  }
  if (inputs) {
    ranges(h, inputs->first);
    ranges(w, inputs->second);
  }
  Tensor host = empty({int64_t(packed.size())}, TensorOptions(kInt64).device(kCPU));
  std::copy(packed.begin(), packed.end(), host.data_ptr<int64_t>());
  keep = host.to(device);
  const int64_t* d = keep.data_ptr<int64_t>();
  auto p = [&](size_t k) { return k < at.size() ? d + at[k] : nullptr; };
  return {Axis{p(0), p(1), p(2), p(6), p(7), h.step}, Axis{p(3), p(4), p(5), p(8), p(9), w.step}};
}

// The starting value of a max: below every element (NaN is taken separately).
template <typename T>
__device__ Acc<T> lowest() {
  if constexpr (std::is_integral_v<T>) return std::numeric_limits<T>::lowest();
  else return Acc<T>(-INFINITY);
}

template <typename C>
__device__ bool is_nan(C v) {
  if constexpr (std::is_floating_point_v<C>) return v != v;
  else return false;
}

// Output element i of (P, OH, OW) as its plane and window indices.
struct OutputAt {
  int64_t p, oh, ow;
  __device__ OutputAt(int64_t i, int64_t OH, int64_t OW) : p(i / (OH * OW)), oh(i / OW % OH), ow(i % OW) {}
};

template <typename T>
__global__ void max_pool_fwd(const T* in, T* out, int64_t* indices, int64_t total, int64_t H, int64_t W, int64_t OH,
                             int64_t OW, Axis ah, Axis aw) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    OutputAt o(i, OH, OW);
    const T* plane = in + o.p * H * W;
    const int64_t h0 = ah.start[o.oh], hn = ah.count[o.oh], w0 = aw.start[o.ow], wn = aw.count[o.ow];
    Acc<T> best = lowest<T>();
    int64_t best_at = h0 * W + w0;
    for (int64_t a = 0; a < hn; ++a) {
      for (int64_t b = 0; b < wn; ++b) {
        const int64_t at = (h0 + a * ah.step) * W + w0 + b * aw.step;
        const Acc<T> v = Acc<T>(plane[at]);
        if (v > best || is_nan(v)) best = v, best_at = at;  // torch's rule: the last NaN wins
      }
    }
    out[i] = T(best);
    if (indices) indices[i] = best_at;
  }
}

__device__ int64_t divisor_at(const Axis& ah, const Axis& aw, int64_t oh, int64_t ow, int64_t divisor) {
  return divisor ? divisor : ah.span[oh] * aw.span[ow];
}

template <typename T>
__global__ void avg_pool_fwd(const T* in, T* out, int64_t total, int64_t H, int64_t W, int64_t OH, int64_t OW,
                             Axis ah, Axis aw, int64_t divisor) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    OutputAt o(i, OH, OW);
    const int64_t h0 = ah.start[o.oh], hn = ah.count[o.oh], w0 = aw.start[o.ow], wn = aw.count[o.ow];
    if (hn == 0 || wn == 0) {  // a window in the padding alone
      out[i] = T(0);
      continue;
    }
    Acc<T> sum = 0;
    for (int64_t ih = h0; ih < h0 + hn; ++ih) {
      const T* row = in + (o.p * H + ih) * W + w0;
      for (int64_t j = 0; j < wn; ++j) sum += Acc<T>(row[j]);
    }
    out[i] = T(sum / Acc<T>(divisor_at(ah, aw, o.oh, o.ow, divisor)));
  }
}

// Each input element sums its windows' shares, rounding to T after each as the CPU's scatter does.
template <typename T>
__global__ void avg_pool_bwd(const T* grad, T* grad_input, int64_t total, int64_t H, int64_t W, int64_t OH,
                             int64_t OW, Axis ah, Axis aw, int64_t divisor) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t p = i / (H * W), ih = i / W % H, iw = i % W;
    T acc = T(0);
    for (int64_t oh = ah.lo[ih]; oh < ah.hi[ih]; ++oh) {
      if (!ah.holds(oh, ih)) continue;
      for (int64_t ow = aw.lo[iw]; ow < aw.hi[iw]; ++ow) {
        if (!aw.holds(ow, iw)) continue;
        Acc<T> share = Acc<T>(grad[(p * OH + oh) * OW + ow]) / Acc<T>(divisor_at(ah, aw, oh, ow, divisor));
        acc = T(Acc<T>(acc) + share);
      }
    }
    grad_input[i] = acc;
  }
}

template <typename T>
__device__ void atomic_add(T* p, T v) {
  if constexpr (std::is_same_v<T, Half>) atomicAdd(reinterpret_cast<__half*>(p), __ushort_as_half(v.x));
  else if constexpr (std::is_same_v<T, BFloat16>) atomicAdd(reinterpret_cast<__nv_bfloat16*>(p), __ushort_as_bfloat16(v.x));
  else atomicAdd(p, v);
}

template <typename T>
__global__ void max_pool_bwd(const T* grad, const int64_t* indices, T* grad_input, int64_t total, int64_t O,
                             int64_t HW) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t at = indices[i];
    if (at >= 0 && at < HW) atomic_add(grad_input + i / O * HW + at, grad[i]);
  }
}

// The dtypes pooling computes in: every number type but bool and the float8s (the op layer checks).
template <typename Fn>
void visit_pool_dtype(ScalarType t, Fn&& fn) {
  visit_dtype(t, [&]<typename T>(T) {
    if constexpr (!std::is_same_v<T, bool> && !functors::is_float8<T>) fn(T{});
  });
}

}  // namespace

void max_pool_kernel(const Tensor& input, const Tensor& output, const Tensor& indices, const PoolAxis& h,
                     const PoolAxis& w) {
  const int64_t total = output.numel();
  if (total == 0) return;
  DeviceGuard guard(device_index(input.device()));
  Tensor keep;
  auto [ah, aw] = device_axes(h, w, input.device(), keep);
  visit_pool_dtype(input.dtype(), [&]<typename T>(T) {
    max_pool_fwd<T><<<grid_for(total, 1), kBlockThreads, 0, current_stream()>>>(
        input.data_ptr<T>(), output.data_ptr<T>(), indices.defined() ? indices.data_ptr<int64_t>() : nullptr, total,
        input.size(1), input.size(2), output.size(1), output.size(2), ah, aw);
    EMBER_CUDA_LAUNCH();
  });
}

void avg_pool_kernel(const Tensor& input, const Tensor& output, const PoolAxis& h, const PoolAxis& w,
                     int64_t divisor) {
  const int64_t total = output.numel();
  if (total == 0) return;
  DeviceGuard guard(device_index(input.device()));
  Tensor keep;
  auto [ah, aw] = device_axes(h, w, input.device(), keep);
  visit_pool_dtype(input.dtype(), [&]<typename T>(T) {
    avg_pool_fwd<T><<<grid_for(total, 1), kBlockThreads, 0, current_stream()>>>(
        input.data_ptr<T>(), output.data_ptr<T>(), total, input.size(1), input.size(2), output.size(1),
        output.size(2), ah, aw, divisor);
    EMBER_CUDA_LAUNCH();
  });
}

void max_pool_backward_kernel(const Tensor& grad_output, const Tensor& indices, const Tensor& grad_input) {
  if (grad_input.numel() == 0) return;
  DeviceGuard guard(device_index(grad_input.device()));
  cudaStream_t stream = current_stream();
  EMBER_CUDA_CHECK(cudaMemsetAsync(grad_input.data_ptr(), 0, size_t(grad_input.nbytes()), stream));
  const int64_t total = grad_output.numel();
  if (total == 0) return;
  visit_pool_dtype(grad_input.dtype(), [&]<typename T>(T) {
    if constexpr (std::is_integral_v<T>) {
      throw Error("max_pool_backward: gradients are floating");
    } else {
      max_pool_bwd<T><<<grid_for(total, 1), kBlockThreads, 0, stream>>>(
          grad_output.data_ptr<T>(), indices.data_ptr<int64_t>(), grad_input.data_ptr<T>(), total,
          grad_output.size(1) * grad_output.size(2), grad_input.size(1) * grad_input.size(2));
      EMBER_CUDA_LAUNCH();
    }
  });
}

void avg_pool_backward_kernel(const Tensor& grad_output, const Tensor& grad_input, const PoolAxis& h,
                              const PoolAxis& w, int64_t divisor) {
  const int64_t total = grad_input.numel(), H = grad_input.size(1), W = grad_input.size(2);
  if (total == 0) return;
  DeviceGuard guard(device_index(grad_input.device()));
  Tensor keep;
  std::pair<int64_t, int64_t> inputs{H, W};
  auto [ah, aw] = device_axes(h, w, grad_input.device(), keep, &inputs);
  visit_pool_dtype(grad_input.dtype(), [&]<typename T>(T) {
    avg_pool_bwd<T><<<grid_for(total, 1), kBlockThreads, 0, current_stream()>>>(
        grad_output.data_ptr<T>(), grad_input.data_ptr<T>(), total, H, W, grad_output.size(1), grad_output.size(2),
        ah, aw, divisor);
    EMBER_CUDA_LAUNCH();
  });
}

}  // namespace ember::cuda_backend

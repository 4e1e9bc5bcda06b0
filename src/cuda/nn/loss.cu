// nll_loss (forward and backward) and cross_entropy's fused row kernels on CUDA, with the CPU kernels' arithmetic
// (src/cpu/unary/nn_loss.cpp). A target outside [0, C) is never read through: the kernels skip it and keep the
// first such element's index in a device flag that the host reads back once (the op raises IndexError).
#include <cmath>

#include "../../functors/compute.h"
#include "../elementwise.cuh"
#include "../graph.h"
#include "../reduce_common.cuh"
#include "ember/creation.h"
#include "nn_kernels.h"

namespace ember::cuda_backend {

namespace {

template <typename Fn>
void visit_floating(ScalarType t, const char* what, Fn&& fn) {
  visit_dtype(t, [&]<typename T>(T) {
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) fn(T{});
    else throw Error(str(what, ": floating dtypes only"));
  });
}

// The (N, C, S) problem of nll_loss: logp[n, t, s] (minus lse[n] when given) weighted by w[t].
template <typename T>
struct Nll {
  using A = functors::Compute<T>;
  const T *x, *w, *lse;
  const int64_t* target;
  int64_t C, S, ignore_index;
  // Sets the first bad element's index in flag[0] (all ones while none).
  unsigned long long* flag;

  // Element i's -w[t] logp and its weight w[t] (0 and 0 when ignored or out of range).
  __device__ A element(int64_t i, A& wt) const {
    int64_t k = target[i], n = i / S, s = i - n * S;
    wt = A(0);
    if (k == ignore_index) return A(0);
    if (k < 0 || k >= C) {
      atomicMin(flag, static_cast<unsigned long long>(i));
      return A(0);
    }
    wt = w ? A(w[k]) : A(1);
    A v = A(x[(n * C + k) * S + s]) - (lse ? A(lse[n]) : A(0));
    return -wt * v;
  }
};

template <typename T>
__global__ void nll_none(Nll<T> p, int64_t m, T* out) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += int64_t(gridDim.x) * blockDim.x) {
    typename Nll<T>::A wt;
    out[i] = T(p.element(i, wt));
  }
}

constexpr int kReduceThreads = 1024;

// One block sums the losses and weights (in double, a fixed order); nothing is written when a target is bad.
template <typename T>
__global__ void __launch_bounds__(kReduceThreads) nll_reduced(Nll<T> p, int64_t m, bool mean, T* out, T* total) {
  __shared__ double smem[32];
  double sum = 0, wsum = 0;
  for (int64_t i = threadIdx.x; i < m; i += blockDim.x) {
    typename Nll<T>::A wt;
    sum += double(p.element(i, wt));
    wsum += double(wt);
  }
  sum = block_fold(sum, 0.0, Add{}, smem);
  wsum = block_fold(wsum, 0.0, Add{}, smem);
  bool bad = __syncthreads_or(*static_cast<volatile unsigned long long*>(p.flag) != ~0ull);  // past L1
  if (threadIdx.x == 0 && !bad) {
    *total = T(wsum);
    *out = T(mean ? sum / wsum : sum);
  }
}

// flag[1] = the target at flag[0], when that is set.
__global__ void read_bad_target(const int64_t* target, unsigned long long* flag) {
  if (flag[0] != ~0ull) flag[1] = static_cast<unsigned long long>(target[flag[0]]);
}

template <typename T>
__global__ void nll_backward(const T* grad, const T* total_weight, const T* w, const int64_t* target, int64_t m,
                             int64_t C, int64_t S, int64_t ignore_index, Reduction reduction, T* coef, T* dense) {
  using A = functors::Compute<T>;
  A scale = reduction == Reduction::None ? A(1) : A(grad[0]);
  if (reduction == Reduction::Mean) scale /= A(*total_weight);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t k = target[i];
    bool counted = k != ignore_index && k >= 0 && k < C;  // the forward has checked the range
    A g = reduction == Reduction::None ? A(grad[i]) : scale;
    T c = counted ? T(-(w ? A(w[k]) : A(1)) * g) : T(0);
    coef[i] = c;
    if (dense && counted) {
      int64_t n = i / S, s = i - n * S;
      dense[(n * C + k) * S + s] = c;
    }
  }
}

// Rows of G threads (a warp, or the block), blockDim.x / G rows per block.
template <typename T, int G>
__global__ void __launch_bounds__(256) logsumexp_rows(const T* x, T* lse, int64_t rows, int64_t C) {
  __shared__ T smem[32];
  const int per_block = blockDim.x / G, lane = threadIdx.x % G;
  auto all = [&](T v, T identity, auto f) {
    if constexpr (G == 32) return warp_all(v, f);
    else return block_all(v, identity, f, smem);
  };
  for (int64_t row = int64_t(blockIdx.x) * per_block + threadIdx.x / G; row < rows;
       row += int64_t(gridDim.x) * per_block) {
    const T* r = x + row * C;
    T m = -INFINITY;
    for (int64_t j = lane; j < C; j += G) m = MaxSkipNaN{}(m, r[j]);
    m = all(m, T(-INFINITY), MaxSkipNaN{});
    if (std::isinf(m)) m = 0;  // all -inf (or a +inf): exp of the raw values gives torch's result
    T s = 0;
    for (int64_t j = lane; j < C; j += G) s += std::exp(r[j] - m);
    s = all(s, T(0), Add{});
    if (lane == 0) lse[row] = m + std::log(s);
  }
}

template <typename T>
__global__ void cross_entropy_grad(const T* x, const T* lse, const int64_t* target, const T* coef, int64_t total,
                                   int64_t C, T* gx) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t n = i / C, j = i - n * C;
    T k = coef[n], shift = lse[n];
    if (k == T(0)) {  // an ignored row: torch's 0 - softmax * 0, nan where the row has a +inf (lse nan)
      gx[i] = std::isnan(shift) ? shift : T(0);
    } else {
      T v = -k * std::exp(x[i] - shift);
      gx[i] = j == target[n] ? v + k : v;
    }
  }
}

}  // namespace

std::optional<int64_t> nll_loss_kernel(const Tensor& logp, const Tensor& lse, const Tensor& target,
                                       const Tensor& weight, int64_t ignore_index, Reduction reduction,
                                       const Tensor& out, const Tensor& total_weight) {
  const int64_t N = logp.sizes()[0], C = logp.sizes()[1], S = logp.sizes()[2], m = N * S;
  DeviceGuard guard(device_index(logp.device()));
  cudaStream_t stream = current_stream();
  Tensor flag = empty({2}, target.options());
  auto* f = reinterpret_cast<unsigned long long*>(flag.data_ptr());
  EMBER_CUDA_CHECK(cudaMemsetAsync(f, 0xff, 2 * sizeof(int64_t), stream));
  visit_floating(logp.dtype(), "nll_loss", [&]<typename T>(T) {
    Nll<T> p{static_cast<const T*>(logp.data_ptr()), data_or_null<T>(weight), data_or_null<T>(lse),
             target.data_ptr<int64_t>(), C, S, ignore_index, f};
    if (reduction == Reduction::None) {
      if (m == 0) return;
      nll_none<T><<<grid_for(m, 1), kBlockThreads, 0, stream>>>(p, m, static_cast<T*>(out.data_ptr()));
    } else {
      nll_reduced<T><<<1, kReduceThreads, 0, stream>>>(p, m, reduction == Reduction::Mean,
                                                       static_cast<T*>(out.data_ptr()),
                                                       static_cast<T*>(total_weight.data_ptr()));
    }
    EMBER_CUDA_LAUNCH();
  });
  read_bad_target<<<1, 1, 0, stream>>>(target.data_ptr<int64_t>(), f);
  EMBER_CUDA_LAUNCH();
  if (is_capturing(stream)) return std::nullopt;  // a graph capture cannot wait for the check: targets go unchecked
  int64_t bad[2];
  EMBER_CUDA_CHECK(cudaMemcpyAsync(bad, f, sizeof(bad), cudaMemcpyDeviceToHost, stream));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (bad[0] != -1) return bad[1];
  return std::nullopt;
}

void nll_loss_backward_kernel(const Tensor& grad, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                              Reduction reduction, const Tensor& total_weight, const Tensor& coef,
                              const Tensor& dense) {
  const int64_t N = coef.sizes()[0], S = coef.sizes()[1], m = N * S;
  const int64_t C = dense.defined() ? dense.sizes()[1] : INT64_MAX;
  DeviceGuard guard(device_index(coef.device()));
  cudaStream_t stream = current_stream();
  if (dense.defined() && dense.numel() > 0) {
    EMBER_CUDA_CHECK(cudaMemsetAsync(dense.data_ptr(), 0, size_t(dense.numel()) * dense.element_size(), stream));
  }
  if (m == 0) return;
  visit_floating(coef.dtype(), "nll_loss_backward", [&]<typename T>(T) {
    nll_backward<T><<<grid_for(m, 1), kBlockThreads, 0, stream>>>(
        static_cast<const T*>(grad.data_ptr()), data_or_null<T>(total_weight), data_or_null<T>(weight),
        target.data_ptr<int64_t>(), m, C, S, ignore_index, reduction, static_cast<T*>(coef.data_ptr()),
        dense.defined() ? static_cast<T*>(dense.data_ptr()) : nullptr);
    EMBER_CUDA_LAUNCH();
  });
}

void row_logsumexp_kernel(const Tensor& x, const Tensor& lse) {
  const int64_t N = x.sizes()[0], C = x.sizes()[1];
  if (N == 0) return;
  DeviceGuard guard(device_index(x.device()));
  visit_floating(x.dtype(), "row_logsumexp", [&]<typename T>(T) {
    if constexpr (std::is_floating_point_v<T>) {
      const T* px = x.data_ptr<T>();
      T* out = lse.data_ptr<T>();
      if (C <= 2048) {  // a warp per row
        unsigned blocks = unsigned(std::min<int64_t>((N + 7) / 8, int64_t(1) << 30));
        logsumexp_rows<T, 32><<<blocks, 256, 0, current_stream()>>>(px, out, N, C);
      } else {
        unsigned blocks = unsigned(std::min<int64_t>(N, int64_t(1) << 30));
        logsumexp_rows<T, 256><<<blocks, 256, 0, current_stream()>>>(px, out, N, C);
      }
      EMBER_CUDA_LAUNCH();
    } else {
      throw Error("row_logsumexp: float32/float64 only");
    }
  });
}

void cross_entropy_backward_kernel(const Tensor& x, const Tensor& lse, const Tensor& target, const Tensor& coef,
                                   const Tensor& gx) {
  const int64_t total = x.numel(), C = x.sizes()[1];
  if (total == 0) return;
  DeviceGuard guard(device_index(x.device()));
  visit_floating(x.dtype(), "cross_entropy_backward", [&]<typename T>(T) {
    if constexpr (std::is_floating_point_v<T>) {
      cross_entropy_grad<T><<<grid_for(total, 1), kBlockThreads, 0, current_stream()>>>(
          x.data_ptr<T>(), lse.data_ptr<T>(), target.data_ptr<int64_t>(), coef.data_ptr<T>(), total, C,
          gx.data_ptr<T>());
      EMBER_CUDA_LAUNCH();
    } else {
      throw Error("cross_entropy_backward: float32/float64 only");
    }
  });
}

}  // namespace ember::cuda_backend

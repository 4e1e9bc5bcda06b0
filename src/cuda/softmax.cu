// softmax / log_softmax of each row of a contiguous (rows, n) float32/float64 tensor, with the CPU kernel's
// arithmetic: max shift, exp in the element type, the sum in double. Rows of at most 1024 elements: a warp per row
// holding it in registers (one read, one write; 16-byte accesses when rows are aligned). Longer rows: a block per
// row in three passes (max, sum, write).
#include <algorithm>
#include <cmath>

#include "elementwise.cuh"
#include "ember/float_types.h"
#include "kernels.h"
#include "reduce_common.cuh"

namespace ember::cuda_backend {

namespace {

constexpr int kRowsPerBlock = 8;  // warps of a 256-thread block

template <typename C>
__device__ C exp_of(C v) {
  if constexpr (std::is_same_v<C, float>) return expf(v);
  else return ::exp(v);
}

// v rounded to `dtype` when that is float16 or bfloat16.
__device__ double narrow_to(double v, ScalarType dtype) {
  if (dtype == kFloat16) return float(Half(float(v)));
  return dtype == kBFloat16 ? float(BFloat16(float(v))) : v;
}

// The value log_softmax subtracts from x - max: log of the row's sum, rounded as the CPU kernel rounds it.
template <typename C>
__device__ C log_of_sum(double sum, ScalarType source) {
  return C(narrow_to(C(::log(narrow_to(sum, source))), source));
}

// Lane l holds vectors l, l + 32, ... (NV of them, VEC elements each) of its warp's row.
template <typename C, int VEC, int NV>
__global__ void __launch_bounds__(256) softmax_warp(const C* x, C* y, int64_t rows, int n, bool log,
                                                    ScalarType source) {
  int lane = threadIdx.x % 32;
  for (int64_t row = int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32; row < rows;
       row += int64_t(gridDim.x) * kRowsPerBlock) {
    const auto* in = reinterpret_cast<const Vec<C, VEC>*>(x + row * n);
    auto* out = reinterpret_cast<Vec<C, VEC>*>(y + row * n);
    Vec<C, VEC> v[NV];
    C m = -INFINITY;
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      if ((lane + 32 * j) * VEC < n) {
        v[j] = in[lane + 32 * j];
#pragma unroll
        for (int k = 0; k < VEC; ++k) m = MaxSkipNaN{}(m, v[j].v[k]);
      }
    }
    m = warp_all(m, MaxSkipNaN{});
    double sum = 0;
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      if ((lane + 32 * j) * VEC < n) {
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
          C e = exp_of(C(v[j].v[k] - m));
          sum += e;
          if (!log) v[j].v[k] = e;
        }
      }
    }
    sum = warp_all(sum, Add{});
    C shift = log ? log_of_sum<C>(sum, source) : C(0), inv = C(1.0 / sum);
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      if ((lane + 32 * j) * VEC < n) {
#pragma unroll
        for (int k = 0; k < VEC; ++k) v[j].v[k] = log ? C(v[j].v[k] - m) - shift : v[j].v[k] * inv;
        out[lane + 32 * j] = v[j];
      }
    }
  }
}

template <typename C>
__global__ void __launch_bounds__(512) softmax_block(const C* x, C* y, int64_t rows, int64_t n, bool log,
                                                     ScalarType source) {
  __shared__ C smem_c[32];
  __shared__ double smem_d[32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const C* in = x + row * n;
    C* out = y + row * n;
    C m = -INFINITY;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) m = MaxSkipNaN{}(m, in[i]);
    m = block_all(m, C(-INFINITY), MaxSkipNaN{}, smem_c);
    double sum = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) sum += exp_of(C(in[i] - m));
    sum = block_all(sum, 0.0, Add{}, smem_d);
    C shift = log ? log_of_sum<C>(sum, source) : C(0), inv = C(1.0 / sum);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      out[i] = log ? C(in[i] - m) - shift : exp_of(C(in[i] - m)) * inv;
    }
  }
}

// The warp kernel with the fewest vectors per lane that cover n.
template <typename C, int VEC, int NV = 1>
void launch_warp(const C* x, C* y, int64_t rows, int n, bool log, ScalarType source) {
  if constexpr (NV * VEC < 32) {
    if (32 * NV * VEC < n) return launch_warp<C, VEC, NV * 2>(x, y, rows, n, log, source);
  }
  int64_t blocks = std::min<int64_t>((rows + kRowsPerBlock - 1) / kRowsPerBlock, int64_t(1) << 30);
  softmax_warp<C, VEC, NV><<<unsigned(blocks), 32 * kRowsPerBlock, 0, current_stream()>>>(x, y, rows, n, log, source);
  EMBER_CUDA_LAUNCH();
}

}  // namespace

void softmax_kernel(const Tensor& x, const Tensor& out, bool log, ScalarType source) {
  int64_t rows = x.sizes()[0], n = x.sizes()[1];
  if (rows == 0 || n == 0) return;
  DeviceGuard guard(device_index(x.device()));
  visit_dtype(x.dtype(), [&]<typename T>(T) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* px = x.data_ptr<T>();
      T* py = out.data_ptr<T>();
      constexpr int W = 16 / sizeof(T);
      bool aligned =
          n % W == 0 && reinterpret_cast<uintptr_t>(px) % 16 == 0 && reinterpret_cast<uintptr_t>(py) % 16 == 0;
      if (n > 1024) {
        unsigned blocks = unsigned(std::min<int64_t>(rows, int64_t(1) << 30));
        softmax_block<T><<<blocks, 512, 0, current_stream()>>>(px, py, rows, n, log, source);
        EMBER_CUDA_LAUNCH();
      } else if (aligned) {
        launch_warp<T, W>(px, py, rows, int(n), log, source);
      } else {
        launch_warp<T, 1>(px, py, rows, int(n), log, source);
      }
    } else {
      throw NotImplementedError(str("softmax of ", dtype_name(x.dtype()), " must be computed in float32"));
    }
  });
}

}  // namespace ember::cuda_backend

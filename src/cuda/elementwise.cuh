// The GPU loop under every elementwise kernel: out = f(in...) over a StridedPlan (operand 0 the output).
// Contiguous operands take a vectorised pass (4 elements per access, 16 bytes for float32); any other layout a
// grid-stride pass that turns each linear index into byte offsets, in 32-bit arithmetic where the plan fits.
#pragma once
#include <array>
#include <cstdint>
#include <utility>

#include "../iter/strided_plan.h"
#include "ember/tensor.h"
#include "runtime.h"

namespace ember::cuda_backend {

constexpr int kMaxDims = 25;  // as torch: a plan with more dims after coalescing raises

// Byte offsets of N operands for a linear index, innermost dim fastest. Index is int32_t or int64_t.
template <int N, typename Index>
struct OffsetCalc {
  int ndim;
  Index sizes[kMaxDims];
  Index strides[kMaxDims][N];

  __device__ void offsets(Index i, Index (&off)[N]) const {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = 0;
    for (int d = 0; d < ndim; ++d) {
      Index idx = i % sizes[d];
      i /= sizes[d];
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += idx * strides[d][k];
    }
  }
};

template <int N, typename Index>
OffsetCalc<N, Index> make_offset_calc(const StridedPlan<N>& plan) {
  EMBER_CHECK(plan.ndim() <= kMaxDims, NotImplementedError, "CUDA elementwise kernels take at most ", kMaxDims,
              " dims after merging contiguous ones; this operand layout has ", plan.ndim());
  OffsetCalc<N, Index> calc{};
  calc.ndim = int(plan.ndim());
  for (int d = 0; d < calc.ndim; ++d) {
    calc.sizes[d] = Index(plan.sizes[d]);
    for (int k = 0; k < N; ++k) calc.strides[d][k] = Index(plan.strides[k][d]);
  }
  return calc;
}

// Whether every byte offset the plan reaches (and its element count) fits in int32_t.
template <int N>
bool fits_int32(const StridedPlan<N>& plan) {
  if (plan.numel > INT32_MAX) return false;
  for (int k = 0; k < N; ++k) {
    int64_t reach = 0;
    for (int64_t d = 0; d < plan.ndim(); ++d) reach += (plan.sizes[d] - 1) * (plan.strides[k][d] < 0 ? -plan.strides[k][d] : plan.strides[k][d]);
    if (reach > INT32_MAX / 2) return false;
  }
  return true;
}

template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Vec {
  T v[VEC];
};

template <int VEC, typename T>
__device__ Vec<T, VEC> load_vec(const T* p, int64_t i) {
  return *reinterpret_cast<const Vec<T, VEC>*>(p + i);
}

template <int VEC, typename Out, typename F, typename... V>
__device__ void compute_store(Out* out, int64_t i, const F& f, const V&... in) {
  Vec<Out, VEC> r;
#pragma unroll
  for (int j = 0; j < VEC; ++j) r.v[j] = f(in.v[j]...);
  *reinterpret_cast<Vec<Out, VEC>*>(out + i) = r;
}

// Contiguous operands: thread t handles elements [VEC*t, VEC*t + VEC) of each grid-stride step.
template <int VEC, typename F, typename Out, typename... In>
__global__ void vectorized_kernel(int64_t n, F f, Out* out, const In*... in) {
  int64_t nvec = n / VEC;
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t v = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    compute_store<VEC>(out, v * VEC, f, load_vec<VEC>(in, v * VEC)...);
  }
  if (blockIdx.x == 0 && threadIdx.x < n - nvec * VEC) {  // the tail
    int64_t i = nvec * VEC + threadIdx.x;
    out[i] = f(in[i]...);
  }
}

template <int N, typename Index, typename F, typename Out, typename... In, size_t... I>
__device__ void strided_element(const OffsetCalc<N, Index>& calc, const std::array<char*, N>& base, Index i,
                                const F& f, std::index_sequence<I...>) {
  Index off[N];
  calc.offsets(i, off);
  *reinterpret_cast<Out*>(base[0] + off[0]) = f(*reinterpret_cast<const In*>(base[I + 1] + off[I + 1])...);
}

template <typename Index, typename F, typename Out, typename... In>
__global__ void strided_kernel(OffsetCalc<1 + sizeof...(In), Index> calc, std::array<char*, 1 + sizeof...(In)> base,
                               Index n, F f) {
  Index stride = Index(gridDim.x) * blockDim.x;
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    strided_element<1 + sizeof...(In), Index, F, Out, In...>(calc, base, i, f, std::index_sequence_for<In...>{});
  }
}

// Runs out = f(in...) over `plan` (operand 0: Out, then one operand per In) on the current stream.
// f is a functor with a __device__ call operator.
template <typename Out, typename... In, typename F>
void elementwise(const StridedPlan<1 + sizeof...(In)>& plan, const F& f) {
  constexpr int N = 1 + sizeof...(In);
  int64_t n = plan.numel;
  if (n == 0) return;
  constexpr std::array<int64_t, N> itemsize{int64_t(sizeof(Out)), int64_t(sizeof(In))...};
  bool contiguous = plan.ndim() == 1;
  bool aligned = true;
  for (int k = 0; k < N && contiguous; ++k) {
    contiguous = plan.strides[k][0] == itemsize[k];
    aligned &= reinterpret_cast<uintptr_t>(plan.base[k]) % (itemsize[k] * 4) == 0;
  }
  cudaStream_t stream = current_stream();
  if (contiguous) {
    auto* out = reinterpret_cast<Out*>(plan.base[0]);
    auto launch = [&]<size_t... I>(std::index_sequence<I...>) {
      if (aligned) {
        vectorized_kernel<4><<<grid_for(n, 4), kBlockThreads, 0, stream>>>(
            n, f, out, reinterpret_cast<const In*>(plan.base[I + 1])...);
      } else {
        vectorized_kernel<1><<<grid_for(n, 1), kBlockThreads, 0, stream>>>(
            n, f, out, reinterpret_cast<const In*>(plan.base[I + 1])...);
      }
    };
    launch(std::index_sequence_for<In...>{});
  } else if (fits_int32(plan)) {
    strided_kernel<int32_t, F, Out, In...><<<grid_for(n, 1), kBlockThreads, 0, stream>>>(
        make_offset_calc<N, int32_t>(plan), plan.base, int32_t(n), f);
  } else {
    strided_kernel<int64_t, F, Out, In...><<<grid_for(n, 1), kBlockThreads, 0, stream>>>(
        make_offset_calc<N, int64_t>(plan), plan.base, n, f);
  }
  EMBER_CUDA_LAUNCH();
}

// A plan of one tensor (the output alone).
inline StridedPlan<1> plan_of(const Tensor& t) {
  return make_plan<1>(t.sizes(), {t.strides()}, {int64_t(t.element_size())}, {static_cast<char*>(t.data_ptr())});
}

}  // namespace ember::cuda_backend

// The GPU loop under every elementwise kernel: out = f(in...) over a StridedPlan (operand 0 the output).
// Contiguous, aligned operands take a vectorised pass (16-byte accesses to the narrowest operand, at least 4
// elements per thread); any other layout (a misaligned view included) a grid-stride pass that turns each linear
// index into byte offsets in 32-bit arithmetic, over pieces of the plan that fit (for_each_piece).
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "../iter/plan_pieces.h"
#include "../iter/tensor_iterator.h"
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

// The inputs of a kernel: each a device pointer or, where its bit is set in `bound`, a CPU value broadcast to every
// element (a wrapped number beside CUDA tensors), carried in the kernel's parameters. One kernel serves every mix,
// and no host pointer reaches the device.
template <typename... In>
struct Inputs {
  const char* ptr[sizeof...(In) + 1];                      // +1: no zero-length array for a kernel without inputs
  alignas(16) unsigned char value[sizeof...(In) + 1][16];  // the bound values' bytes (complex128, the widest, fits)
  unsigned bound = 0;
};

template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Vec {
  T v[VEC];
};

// VEC elements of input k from element i on: a vector load, or its bound value repeated.
template <int VEC, typename T, typename... In>
__device__ Vec<T, VEC> load_vec(const Inputs<In...>& in, int k, int64_t i) {
  Vec<T, VEC> r;
  if (in.bound >> k & 1) {
    T v = *reinterpret_cast<const T*>(in.value[k]);
#pragma unroll
    for (int j = 0; j < VEC; ++j) r.v[j] = v;
    return r;
  }
  return *reinterpret_cast<const Vec<T, VEC>*>(reinterpret_cast<const T*>(in.ptr[k]) + i);
}

// The element of input k at `offset` bytes from its base (its bound value: offset 0, no base).
template <typename T, typename... In>
__device__ T load_one(const Inputs<In...>& in, int k, int64_t offset) {
  const char* p = in.bound >> k & 1 ? reinterpret_cast<const char*>(in.value[k]) : in.ptr[k] + offset;
  return *reinterpret_cast<const T*>(p);
}

template <int VEC, typename Out, typename F, typename... V>
__device__ void compute_store(Out* out, int64_t i, const F& f, const V&... in) {
  Vec<Out, VEC> r;
#pragma unroll
  for (int j = 0; j < VEC; ++j) r.v[j] = f(in.v[j]...);
  *reinterpret_cast<Vec<Out, VEC>*>(out + i) = r;
}

// Contiguous operands: thread t handles elements [VEC*t, VEC*t + VEC) of each grid-stride step.
template <int VEC, typename F, typename Out, typename... In, size_t... I>
__device__ void vectorized_loop(int64_t n, const F& f, Out* out, const Inputs<In...>& in, std::index_sequence<I...>) {
  int64_t nvec = n / VEC;
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t v = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; v < nvec; v += stride) {
    compute_store<VEC>(out, v * VEC, f, load_vec<VEC, In>(in, int(I), v * VEC)...);
  }
  if (blockIdx.x == 0 && threadIdx.x < n - nvec * VEC) {  // the tail
    int64_t i = nvec * VEC + threadIdx.x;
    out[i] = f(load_one<In>(in, int(I), i * int64_t(sizeof(In)))...);
  }
}

// __grid_constant__: the inputs are read where the launch put them, not copied per thread.
template <int VEC, typename F, typename Out, typename... In>
__global__ void vectorized_kernel(int64_t n, F f, Out* out, const __grid_constant__ Inputs<In...> in) {
  vectorized_loop<VEC>(n, f, out, in, std::index_sequence_for<In...>{});
}

template <typename Index, typename F, typename Out, typename... In, size_t... I>
__device__ void strided_loop(const OffsetCalc<1 + sizeof...(In), Index>& calc, char* out, const Inputs<In...>& in,
                             Index n, const F& f, std::index_sequence<I...>) {
  Index stride = Index(gridDim.x) * blockDim.x;
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    Index off[1 + sizeof...(In)];
    calc.offsets(i, off);
    *reinterpret_cast<Out*>(out + off[0]) = f(load_one<In>(in, int(I), off[I + 1])...);
  }
}

template <typename Index, typename F, typename Out, typename... In>
__global__ void strided_kernel(OffsetCalc<1 + sizeof...(In), Index> calc, char* out,
                               const __grid_constant__ Inputs<In...> in, Index n, F f) {
  strided_loop<Index, F, Out>(calc, out, in, n, f, std::index_sequence_for<In...>{});
}

// Whether every operand of `plan` but the bound inputs is one contiguous run aligned to `vec` elements (the
// vectorised pass).
template <int N>
bool vectorizable(const StridedPlan<N>& plan, const std::array<int64_t, N>& itemsize, int vec, unsigned bound) {
  if (plan.ndim() != 1) return false;
  for (int k = 0; k < N; ++k) {
    if (k > 0 && (bound >> (k - 1) & 1)) continue;
    if (plan.strides[k][0] != itemsize[k] || reinterpret_cast<uintptr_t>(plan.base[k]) % (itemsize[k] * vec) != 0) {
      return false;
    }
  }
  return true;
}

// The inputs of `plan` (operands 1...) into in.ptr; a bound input's pointer is never read.
template <int N, typename... In>
void point_inputs(Inputs<In...>& in, const StridedPlan<N>& plan) {
  for (int k = 0; k + 1 < N; ++k) in.ptr[k] = plan.base[k + 1];
}

// Calls launch(piece, ctx) on 32-bit pieces of `plan`. Shared by every functor (only the launch is per functor),
// so each kernel adds little host code.
template <int N>
void for_each_int32_piece(const StridedPlan<N>& plan, void (*launch)(const StridedPlan<N>&, const void*),
                          const void* ctx) {
  for_each_piece(plan, fits_int32<N>, [&](const StridedPlan<N>& piece) { launch(piece, ctx); });
}

// What the strided launch of one piece needs: the functor and the inputs' bound values.
template <typename F, typename... In>
struct StridedLaunch {
  const F& f;
  Inputs<In...> in;
};

// The strided kernel over one piece; ctx is the StridedLaunch.
template <typename F, typename Out, typename... In>
void launch_strided(const StridedPlan<1 + sizeof...(In)>& piece, const void* ctx) {
  auto launch = *static_cast<const StridedLaunch<F, In...>*>(ctx);
  point_inputs(launch.in, piece);
  strided_kernel<int32_t, F, Out, In...><<<grid_for(piece.numel, 1), kBlockThreads, 0, current_stream()>>>(
      make_offset_calc<1 + sizeof...(In), int32_t>(piece), piece.base[0], launch.in, int32_t(piece.numel), launch.f);
}

// The smallest element size of the operand types (without <algorithm>, which would add to every unit).
template <typename... T>
constexpr int narrowest() {
  int n = 16;
  ((n = int(sizeof(T)) < n ? int(sizeof(T)) : n), ...);
  return n;
}

// Runs out = f(in...) over `plan` (operand 0: Out, then one operand per In) on the current stream; the inputs bound
// in `in` take their values from it (their plan operands are stride 0). f is a functor with a __device__ call operator.
template <typename Out, typename... In, typename F>
void elementwise(const StridedPlan<1 + sizeof...(In)>& plan, const F& f, Inputs<In...> in = {}) {
  constexpr int N = 1 + sizeof...(In);
  int64_t n = plan.numel;
  if (n == 0) return;
  constexpr int kVec = 16 / narrowest<Out, In...>() > 4 ? 16 / narrowest<Out, In...>() : 4;
  if (vectorizable<N>(plan, {int64_t(sizeof(Out)), int64_t(sizeof(In))...}, kVec, in.bound)) {
    point_inputs(in, plan);
    vectorized_kernel<kVec, F, Out, In...><<<grid_for(n, kVec), kBlockThreads, 0, current_stream()>>>(
        n, f, reinterpret_cast<Out*>(plan.base[0]), in);
  } else {
    StridedLaunch<F, In...> launch{f, in};
    for_each_int32_piece<N>(plan, launch_strided<F, Out, In...>, &launch);
  }
  EMBER_CUDA_LAUNCH();
}

// The value of a CPU operand broadcast from one element (read on the host, to be bound into a kernel's inputs).
template <typename V>
V host_value(const Tensor& t) {
  for (int64_t s : t.strides()) {
    EMBER_CHECK(s == 0, Error, "a CPU operand of a CUDA kernel must be one broadcast value");
  }
  return *static_cast<const V*>(t.data_ptr());
}

// No kernel runs without a device input (torch refuses this too).
[[noreturn]] inline void no_device_input(const Tensor& out) {
  throw Error(str("Expected all tensors to be on the same device, but found at least two devices, ",
                  out.device().str(), " and cpu!"));
}

// Input k's value into `in` if t (of element type V) is on the CPU.
template <typename V, typename... In>
void bind_if_host(Inputs<In...>& in, int k, const Tensor& t) {
  if (!t.device().is_cpu()) return;
  V v = host_value<V>(t);
  std::memcpy(in.value[k], &v, sizeof(V));
  in.bound |= 1u << k;
}

// out = f(in...) over tensors of out's sizes: CUDA tensors, or CPU ones broadcast from one value (a wrapped
// number beside CUDA tensors), whose values are read here and passed to the kernel in its parameters.
// At least one input must be on the device, as in torch (a unary op of a CPU scalar into a CUDA out= raises).
template <typename Out, typename... In, typename F>
void elementwise_tensors(const Tensor& out, const std::array<const Tensor*, sizeof...(In)>& inputs,
                         const F& f) {
  constexpr int N = 1 + sizeof...(In);
  if (out.numel() == 0) return;
  Inputs<In...> in{};
  auto plan = [&]<size_t... I>(std::index_sequence<I...>) {
    (bind_if_host<In>(in, int(I), *inputs[I]), ...);
    return make_plan<N>(out.sizes(), {out.strides(), inputs[I]->strides()...},
                        {int64_t(sizeof(Out)), int64_t(sizeof(In))...},
                        {static_cast<char*>(out.data_ptr()), static_cast<char*>(inputs[I]->data_ptr())...});
  }(std::index_sequence_for<In...>{});
  if (sizeof...(In) > 0 && in.bound == (1u << sizeof...(In)) - 1) no_device_input(out);
  elementwise<Out, In...>(plan, f, in);
}

// The first n inputs of an iterator, for elementwise_tensors.
template <size_t n>
std::array<const Tensor*, n> inputs_of(const TensorIterator& it) {
  std::array<const Tensor*, n> in;
  for (size_t k = 0; k < n; ++k) in[k] = &it.input(k);
  return in;
}

// A plan of one tensor (the output alone).
inline StridedPlan<1> plan_of(const Tensor& t) {
  return make_plan<1>(t.sizes(), {t.strides()}, {int64_t(t.element_size())}, {static_cast<char*>(t.data_ptr())});
}

}  // namespace ember::cuda_backend

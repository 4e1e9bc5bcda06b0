// The GPU loop under every elementwise kernel: out = f(in...) over a StridedPlan (operand 0 the output).
// Contiguous, aligned operands take a vectorised pass (16-byte accesses to the narrowest operand, at least 4
// elements per thread); any other layout (a misaligned view included) a grid-stride pass that turns each linear
// index into byte offsets in 32-bit arithmetic, over pieces of the plan that fit (for_each_piece).
#pragma once
#include <array>
#include <cstdint>
#include <tuple>
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

// Whether every operand of `plan` is one contiguous run aligned to `vec` elements (the vectorised pass).
template <int N>
bool vectorizable(const StridedPlan<N>& plan, const std::array<int64_t, N>& itemsize, int vec) {
  if (plan.ndim() != 1) return false;
  for (int k = 0; k < N; ++k) {
    if (plan.strides[k][0] != itemsize[k] || reinterpret_cast<uintptr_t>(plan.base[k]) % (itemsize[k] * vec) != 0) {
      return false;
    }
  }
  return true;
}

// Calls launch(piece, ctx) on 32-bit pieces of `plan`. Shared by every functor (only the launch is per functor),
// so each kernel adds little host code.
template <int N>
void for_each_int32_piece(const StridedPlan<N>& plan, void (*launch)(const StridedPlan<N>&, const void*),
                          const void* ctx) {
  for_each_piece(plan, fits_int32<N>, [&](const StridedPlan<N>& piece) { launch(piece, ctx); });
}

// The strided kernel over one piece; ctx is the functor.
template <typename F, typename Out, typename... In>
void launch_strided(const StridedPlan<1 + sizeof...(In)>& piece, const void* ctx) {
  strided_kernel<int32_t, F, Out, In...><<<grid_for(piece.numel, 1), kBlockThreads, 0, current_stream()>>>(
      make_offset_calc<1 + sizeof...(In), int32_t>(piece), piece.base, int32_t(piece.numel),
      *static_cast<const F*>(ctx));
}

// The smallest element size of the operand types (without <algorithm>, which would add to every unit).
template <typename... T>
constexpr int narrowest() {
  int n = 16;
  ((n = int(sizeof(T)) < n ? int(sizeof(T)) : n), ...);
  return n;
}

// Runs out = f(in...) over `plan` (operand 0: Out, then one operand per In) on the current stream.
// f is a functor with a __device__ call operator.
template <typename Out, typename... In, typename F>
void elementwise(const StridedPlan<1 + sizeof...(In)>& plan, const F& f) {
  constexpr int N = 1 + sizeof...(In);
  int64_t n = plan.numel;
  if (n == 0) return;
  constexpr int kVec = 16 / narrowest<Out, In...>() > 4 ? 16 / narrowest<Out, In...>() : 4;
  if (vectorizable<N>(plan, {int64_t(sizeof(Out)), int64_t(sizeof(In))...}, kVec)) {
    auto launch = [&]<size_t... I>(std::index_sequence<I...>) {
      vectorized_kernel<kVec><<<grid_for(n, kVec), kBlockThreads, 0, current_stream()>>>(
          n, f, reinterpret_cast<Out*>(plan.base[0]), reinterpret_cast<const In*>(plan.base[I + 1])...);
    };
    launch(std::index_sequence_for<In...>{});
  } else {
    for_each_int32_piece<N>(plan, launch_strided<F, Out, In...>, &f);
  }
  EMBER_CUDA_LAUNCH();
}

// The I-th argument of a pack (<cuda/std/tuple> would double a unit's preprocessed text).
template <size_t I, typename A, typename... R>
__device__ auto pack_get(A a, R... r) {
  if constexpr (I == 0) return a;
  else return pack_get<I - 1>(r...);
}

// f with its argument P fixed to v: a host operand's value, bound in so no host pointer reaches a kernel.
template <size_t P, typename V, typename F>
struct BindArg {
  F f;
  V v;
  template <typename... A>
  __device__ auto operator()(A... a) const {
    return call(std::make_index_sequence<P>{}, std::make_index_sequence<sizeof...(A) - P>{}, a...);
  }
  template <size_t... I, size_t... J, typename... A>
  __device__ auto call(std::index_sequence<I...>, std::index_sequence<J...>, A... a) const {
    return f(pack_get<I>(a...)..., v, pack_get<P + J>(a...)...);
  }
};

// A two-argument f with one argument fixed to v, the first if `first` (else the second): one kernel serves a host
// value on either side, where the arguments have one type.
template <typename V, typename F>
struct BindEither {
  F f;
  V v;
  bool first;
  __device__ auto operator()(V a) const {
    V x = first ? v : a, y = first ? a : v;
    return f(x, y);
  }
};

// The value of a CPU operand broadcast from one element (read on the host, to be bound into f).
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

// out = f(in...) over device tensors of out's sizes.
template <typename Out, typename... In, typename F>
void run_on_device(const Tensor& out, const std::array<const Tensor*, sizeof...(In)>& in, const F& f) {
  constexpr int N = 1 + sizeof...(In);
  auto plan = [&]<size_t... I>(std::index_sequence<I...>) {
    return make_plan<N>(out.sizes(), {out.strides(), in[I]->strides()...},
                        {int64_t(sizeof(Out)), int64_t(sizeof(In))...},
                        {static_cast<char*>(out.data_ptr()), static_cast<char*>(in[I]->data_ptr())...});
  }(std::index_sequence_for<In...>{});
  elementwise<Out, In...>(plan, f);
}

template <typename... T>
struct Types {};

// Inputs [0, K) are decided: kept in the plan (indices Kept, types KeptT) or bound into f; then input K.
template <typename Out, size_t K, size_t... Kept, typename... KeptT, typename First, typename... Rest, typename F>
void bind_host_inputs(const Tensor& out, const Tensor* const* in, std::index_sequence<Kept...>, Types<KeptT...>,
                      Types<First, Rest...>, const F& f) {
  const Tensor& t = *in[K];
  if (t.device().is_cpu()) {
    First v = host_value<First>(t);
    bind_host_inputs<Out, K + 1>(out, in, std::index_sequence<Kept...>{}, Types<KeptT...>{}, Types<Rest...>{},
                                 BindArg<sizeof...(Kept), First, F>{f, v});
  } else {
    bind_host_inputs<Out, K + 1>(out, in, std::index_sequence<Kept..., K>{}, Types<KeptT..., First>{},
                                 Types<Rest...>{}, f);
  }
}
template <typename Out, size_t K, size_t... Kept, typename... KeptT, typename F>
void bind_host_inputs(const Tensor& out, const Tensor* const* in, std::index_sequence<Kept...>, Types<KeptT...>,
                      Types<>, const F& f) {
  if constexpr (K > 0 && sizeof...(Kept) == 0) no_device_input(out);
  else run_on_device<Out, KeptT...>(out, {in[Kept]...}, f);
}

template <typename... T>
constexpr bool same_pair = false;
template <typename T>
constexpr bool same_pair<T, T> = true;

// bind_host_inputs for two inputs of one type V: a host value on either side takes the same kernel (BindEither).
template <typename Out, typename V, typename F>
void bind_either(const Tensor& out, const Tensor& a, const Tensor& b, const F& f) {
  bool a_host = a.device().is_cpu(), b_host = b.device().is_cpu();
  if (!a_host && !b_host) return run_on_device<Out, V, V>(out, {&a, &b}, f);
  V v = host_value<V>(a_host ? a : b);
  if (a_host && b_host) no_device_input(out);
  run_on_device<Out, V>(out, {a_host ? &b : &a}, BindEither<V, F>{f, v, a_host});
}

// out = f(in...) over tensors of out's sizes: CUDA tensors, or CPU ones broadcast from one value (a wrapped
// number beside CUDA tensors), which are read here and bound into f, leaving only device operands in the plan.
// At least one input must be on the device, as in torch (a unary op of a CPU scalar into a CUDA out= raises).
template <typename Out, typename... In, typename F>
void elementwise_tensors(const Tensor& out, const std::array<const Tensor*, sizeof...(In)>& inputs,
                         const F& f) {
  if (out.numel() == 0) return;
  if constexpr (same_pair<In...>) {
    bind_either<Out, std::tuple_element_t<0, std::tuple<In...>>>(out, *inputs[0], *inputs[1], f);
  } else {
    bind_host_inputs<Out, 0>(out, inputs.data(), std::index_sequence<>{}, Types<>{}, Types<In...>{}, f);
  }
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

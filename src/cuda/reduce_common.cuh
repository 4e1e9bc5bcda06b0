// Helpers shared by the reduction kernels (reduce, arg_extremum, softmax, nn losses and norms): warp and block
// folds in a fixed order (results are deterministic), shuffles of any element type, the SM count.
#pragma once
#include <cstdint>
#include <type_traits>

#include "runtime.h"

namespace ember::cuda_backend {

constexpr unsigned kFullMask = 0xffffffffu;

// __shfl_down_sync / __shfl_xor_sync for any arithmetic type (the narrow ones travel as int).
template <typename V>
__device__ V shfl_down(V v, int delta) {
  if constexpr (std::is_integral_v<V> && sizeof(V) < 4) return V(__shfl_down_sync(kFullMask, int(v), delta));
  else return __shfl_down_sync(kFullMask, v, delta);
}
template <typename V>
__device__ V shfl_xor(V v, int mask) {
  if constexpr (std::is_integral_v<V> && sizeof(V) < 4) return V(__shfl_xor_sync(kFullMask, int(v), mask));
  else return __shfl_xor_sync(kFullMask, v, mask);
}

// Folds v over the warp with f (lane 0 gets f over lanes 0..31 as a fixed tree).
template <typename V, typename F>
__device__ V warp_fold(V v, F f) {
#pragma unroll
  for (int d = 16; d > 0; d /= 2) v = f(v, shfl_down(v, d));
  return v;
}

// Folds v over a block of blockDim.x threads (a multiple of 32, at most 1024) with f; thread 0 gets the result.
// `smem` holds 32 values; the block must reach this call together.
template <typename V, typename F>
__device__ V block_fold(V v, V identity, F f, V* smem) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  v = warp_fold(v, f);
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_fold(lane < int(blockDim.x / 32) ? smem[lane] : identity, f);
  __syncthreads();  // smem may be reused after
  return v;
}

// Folds of the row kernels (softmax, logsumexp): the max skips NaNs (they reach the output through exp).
struct MaxSkipNaN {
  template <typename V>
  __device__ V operator()(V a, V b) const { return b > a ? b : a; }
};
struct Add {
  template <typename V>
  __device__ V operator()(V a, V b) const { return a + b; }
};

// f over all lanes, every lane getting the result (addition and max are commutative, so the lanes agree).
template <typename V, typename F>
__device__ V warp_all(V v, F f) {
#pragma unroll
  for (int d = 16; d > 0; d /= 2) v = f(v, shfl_xor(v, d));
  return v;
}

// f over the block, every thread getting the result.
template <typename V, typename F>
__device__ V block_all(V v, V identity, F f, V* smem) {
  v = block_fold(v, identity, f, smem);
  if (threadIdx.x == 0) smem[0] = v;
  __syncthreads();
  v = smem[0];
  __syncthreads();
  return v;
}

}  // namespace ember::cuda_backend

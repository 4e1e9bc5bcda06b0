// Helpers of the order kernels: order-preserving unsigned keys, CUB calls with Ember-allocated scratch space,
// rows as CUB segments, and reading a device value back on the host.
#pragma once
#include <bit>
#include <cstdint>
#include <type_traits>

#include "../../functors/compute.h"
#include "../bits.h"
#include "../runtime.h"
#include "ember/creation.h"
#include "order.h"

namespace ember::cuda_backend {

using functors::Compute;

template <typename T>
using KeyOf = typename Bits<sizeof(T)>::type;

template <typename T>
__host__ __device__ inline bool is_nan_value(T v) {
  if constexpr (std::is_integral_v<T>) return false;
  else return Compute<T>(v) != Compute<T>(v);
}

// An unsigned key whose order is torch's order of T: NaN (every NaN one key) above +inf, -0 equal to 0; the
// complement for descending order.
template <typename T>
__device__ inline KeyOf<T> to_key(T v, bool descending) {
  using K = KeyOf<T>;
  constexpr K sign = K(K(1) << (8 * sizeof(K) - 1));
  K k;
  if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    k = K(v);
  } else if constexpr (std::is_integral_v<T>) {
    k = K(K(v) ^ sign);
  } else if (is_nan_value(v)) {
    k = K(~K(0));
  } else {
    K bits = std::bit_cast<K>(v);
    if (K(bits & K(~sign)) == 0) bits = 0;
    k = (bits & sign) ? K(~bits) : K(bits | sign);
  }
  return descending ? K(~k) : k;
}

// Calls fn(T{}) for the dtypes the order statistics take (all but float8, which the op layer refuses).
template <typename Fn>
void visit_sortable(ScalarType t, Fn&& fn) {
  visit_dtype(t, [&]<typename T>(T) {
    if constexpr (!functors::is_float8<T>) fn(T{});
  });
}

// A CUB device-wide call f(temp, bytes): once for the size of its scratch space, then with an Ember byte tensor
// of that size on `device` (the caching allocator keeps it for the stream).
template <typename F>
void cub_call(Device device, F&& f) {
  size_t bytes = 0;
  EMBER_CUDA_CHECK(f(nullptr, bytes));
  Tensor temp = empty({int64_t(bytes)}, TensorOptions(kUInt8).device(device));
  EMBER_CUDA_CHECK(f(temp.data_ptr(), bytes));
}

// Where row i of a (rows, n) matrix starts: CUB's segment offsets and keys.
struct RowStart {
  int64_t n;
  __host__ __device__ int64_t operator()(int64_t i) const { return i * n; }
};
struct RowOf {
  int64_t n;
  __host__ __device__ int64_t operator()(int64_t i) const { return i / n; }
};

// The value at a device address, on the host (waits for the stream).
template <typename T>
T read_back(const T* device_value) {
  T v;
  EMBER_CUDA_CHECK(cudaMemcpyAsync(&v, device_value, sizeof(T), cudaMemcpyDeviceToHost, current_stream()));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
  return v;
}

// One thread per element for n elements: blocks of kBlockThreads.
inline unsigned blocks_for(int64_t n) { return grid_for(n, 1); }

}  // namespace ember::cuda_backend

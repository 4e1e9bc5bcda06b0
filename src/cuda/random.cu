// Random fills on the GPU: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", 2011), one
// counter per element, so each thread draws independently and the numbers do not depend on the grid.
#include "random.h"

#include <cmath>
#include <numbers>

#include "ember/dtype.h"
#include "ember/float_types.h"
#include "runtime.h"

namespace ember::cuda_backend {

namespace {

__device__ uint4 philox(uint64_t seed, uint64_t counter) {
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  uint4 c = make_uint4(uint32_t(counter), uint32_t(counter >> 32), 0, 0);
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0 = __umulhi(0xD2511F53u, c.x), lo0 = 0xD2511F53u * c.x;
    uint32_t hi1 = __umulhi(0xCD9E8D57u, c.z), lo1 = 0xCD9E8D57u * c.z;
    c = make_uint4(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

// Uniforms in [0, 1): 24 bits for float arithmetic, 53 for double.
__device__ float uniform24(uint32_t r) { return float(r >> 8) * (1.0f / 16777216.0f); }
__device__ double uniform53(uint32_t hi, uint32_t lo) {
  return double(((uint64_t(hi) << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}

// Samples in the precision the CPU draws them in: double for float64 (and Bernoulli), float otherwise.
template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
struct Draw {
  RandomDraw d;
  __device__ T operator()(uint4 r) const {
    using A = Acc<T>;
    switch (d.dist) {
      case RandomDist::Uniform: {
        A u = std::is_same_v<A, double> ? A(uniform53(r.x, r.y)) : A(uniform24(r.x));
        T v = T(u * (A(d.p1) - A(d.p0)) + A(d.p0));
        return double(v) >= d.p1 ? T(A(d.p0)) : v;  // a sample rounded up to `to` becomes `from`, as on the CPU
      }
      case RandomDist::Normal: {
        A u1, u2;
        if constexpr (std::is_same_v<A, double>) {
          u1 = 1.0 - uniform53(r.x, r.y);  // (0, 1]: log is finite
          u2 = uniform53(r.z, r.w);
        } else {
          u1 = 1.0f - uniform24(r.x);
          u2 = uniform24(r.y);
        }
        A z = ::sqrt(A(-2) * ::log(u1)) * ::cos(A(2 * std::numbers::pi) * u2);
        return T(z * A(d.p1) + A(d.p0));
      }
      case RandomDist::Bernoulli:
        return uniform53(r.x, r.y) < d.p0 ? T(A(d.p1)) : T(A(0));
      default: {
        uint64_t bits = (uint64_t(r.x) << 32) | r.y;
        return convert<T>(int64_t(bits % d.range) + d.from);
      }
    }
  }
};

template <typename T>
__global__ void random_kernel(T* out, int64_t n, Draw<T> draw) {
  const uint64_t* args = draw.d.philox_args;  // a graph replay's seed and base offset, else the draw's own
  const uint64_t seed = args ? args[0] : draw.d.seed, offset = (args ? args[1] : 0) + draw.d.offset;
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = draw(philox(seed, offset + uint64_t(i)));
  }
}

__global__ void write_args(uint64_t* args, uint64_t seed, uint64_t offset) {
  args[0] = seed;
  args[1] = offset;
}

}  // namespace

void random_fill_kernel(const Tensor& dst, const RandomDraw& draw) {
  EMBER_CHECK(dst.is_contiguous(), Error, "random_fill: the CUDA kernel fills contiguous tensors");
  if (dst.numel() == 0) return;
  DeviceGuard guard(device_index(dst.device()));
  visit_dtype(dst.dtype(), [&]<typename T>(T) {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      random_kernel<T><<<grid_for(dst.numel(), 1), kBlockThreads, 0, current_stream()>>>(
          static_cast<T*>(dst.data_ptr()), dst.numel(), Draw<T>{draw});
      EMBER_CUDA_LAUNCH();
    } else {
      throw NotImplementedError(str("random fill on CUDA is not implemented for ", dst.dtype()));
    }
  });
}

void write_philox_args(uint64_t* args, uint64_t seed, uint64_t offset, cudaStream_t stream) {
  write_args<<<1, 1, 0, stream>>>(args, seed, offset);
  EMBER_CUDA_LAUNCH();
}

}  // namespace ember::cuda_backend

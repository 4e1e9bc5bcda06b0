// scatter (every reduction) and masked_select on CUDA. Scatter runs one thread per line along dim, taking the
// line's positions in order (so the last assignment wins and products, extremes and float16 sums round as the
// CPU's); sums of types with an atomic add run a thread per position instead. masked_select counts the mask, then
// CUB's DeviceSelect compacts the elements.
#include <climits>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "../elementwise.cuh"
#include "../../functors/order.h"
#include "order.cuh"

namespace ember::cuda_backend {

namespace {

using R = ScatterReduce;
using functors::scatter_combine;

template <typename T>
constexpr bool has_atomic_add = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> ||
                                std::is_same_v<T, int64_t>;

template <typename T>
__device__ void atomic_add(T* d, T v) {
  if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(d), static_cast<unsigned long long>(v));
  } else {
    atomicAdd(d, v);
  }
}

// Positions p = line * len + j: line enumerates index's dims other than dim (innermost fastest), j runs along dim.
// Offsets in elements of self (of the line; the target adds index * self_step), index and src.
struct Positions {
  OffsetCalc<3, int64_t> lines;
  int64_t len, self_step, index_step, src_step, size;
  __device__ void at(int64_t p, int64_t& self, int64_t& index, int64_t& src) const {
    int64_t off[3];
    lines.offsets(p / len, off);
    int64_t j = p % len;
    self = off[0];
    index = off[1] + j * index_step;
    src = off[2] + j * src_step;
  }
};

// The first bad position seen (atomicMin; LLONG_MAX: none).
__device__ void note_bad(unsigned long long* bad, int64_t p) { atomicMin(bad, static_cast<unsigned long long>(p)); }

template <R Op, typename T>
__global__ void scatter_lines(T* self, const int64_t* index, const T* src, Positions pos, int64_t lines,
                              unsigned long long* bad) {
  for (int64_t l = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; l < lines; l += int64_t(gridDim.x) * blockDim.x) {
    int64_t s, ix, sv;
    pos.at(l * pos.len, s, ix, sv);
    for (int64_t j = 0; j < pos.len; ++j) {
      int64_t v = index[ix + j * pos.index_step];
      if (v < 0 || v >= pos.size) {  // the line stops here, as the CPU's run
        note_bad(bad, l * pos.len + j);
        break;
      }
      scatter_combine<Op>(self[s + v * pos.self_step], src[sv + j * pos.src_step]);
    }
  }
}

template <typename T>
__global__ void scatter_add_atomic(T* self, const int64_t* index, const T* src, Positions pos, int64_t total,
                                   unsigned long long* bad) {
  for (int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < total; p += int64_t(gridDim.x) * blockDim.x) {
    int64_t s, ix, sv;
    pos.at(p, s, ix, sv);
    int64_t v = index[ix];
    if (v < 0 || v >= pos.size) note_bad(bad, p);
    else atomic_add(self + s + v * pos.self_step, src[sv]);
  }
}

// bad[1] = the index value at position bad[0], when there is one.
__global__ void bad_value(const int64_t* index, Positions pos, unsigned long long* bad) {
  if (bad[0] == ULLONG_MAX) return;
  int64_t s, ix, sv;
  pos.at(int64_t(bad[0]), s, ix, sv);
  bad[1] = static_cast<unsigned long long>(index[ix]);
}

Positions positions(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t D = index.dim();
  EMBER_CHECK(D - 1 <= kMaxDims, NotImplementedError, "CUDA scatter takes at most ", kMaxDims + 1, " dims");
  Positions pos{};
  int nd = 0;
  for (int64_t k = D - 1; k >= 0; --k) {  // innermost first
    if (k == dim) continue;
    pos.lines.sizes[nd] = index.sizes()[size_t(k)];
    pos.lines.strides[nd][0] = self.strides()[size_t(k)];
    pos.lines.strides[nd][1] = index.strides()[size_t(k)];
    pos.lines.strides[nd][2] = src.strides()[size_t(k)];
    ++nd;
  }
  pos.lines.ndim = nd;
  pos.len = index.sizes()[size_t(dim)];
  pos.self_step = self.strides()[size_t(dim)];
  pos.index_step = index.strides()[size_t(dim)];
  pos.src_step = src.strides()[size_t(dim)];
  pos.size = self.sizes()[size_t(dim)];
  return pos;
}

template <R Op, typename T>
void scatter_typed(const Tensor& self, const Tensor& index, const Tensor& src, const Positions& pos,
                   unsigned long long* bad) {
  const int64_t total = index.numel(), lines = total / pos.len;
  T* s = self.data_ptr<T>();
  const int64_t* ix = index.data_ptr<int64_t>();
  const T* sv = src.data_ptr<T>();
  if constexpr (Op == R::Sum && has_atomic_add<T>) {
    scatter_add_atomic<T><<<blocks_for(total), kBlockThreads, 0, current_stream()>>>(s, ix, sv, pos, total, bad);
  } else {
    scatter_lines<Op, T><<<blocks_for(lines), kBlockThreads, 0, current_stream()>>>(s, ix, sv, pos, lines, bad);
  }
  EMBER_CUDA_LAUNCH();
}

struct ToCount {
  __host__ __device__ int64_t operator()(bool b) const { return b; }
};

}  // namespace

std::optional<int64_t> scatter_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                      ScatterReduce op) {
  if (index.numel() == 0) return std::nullopt;
  DeviceGuard guard(device_index(self.device()));
  Positions pos = positions(self, dim, index, src);
  Tensor bad = empty({2}, TensorOptions(kInt64).device(self.device()));
  auto* b = reinterpret_cast<unsigned long long*>(bad.data_ptr<int64_t>());
  EMBER_CUDA_CHECK(cudaMemsetAsync(b, 0xff, sizeof(unsigned long long), current_stream()));
  visit_dtype(self.dtype(), [&]<typename T>(T) {
    if constexpr (functors::is_float8<T>) {
      throw NotImplementedError("\"scatter_gather_tensor_cuda\" not implemented for float8 tensors");
    } else {
      switch (op) {
        case R::None: return scatter_typed<R::None, T>(self, index, src, pos, b);
        case R::Sum:
        case R::Mean: return scatter_typed<R::Sum, T>(self, index, src, pos, b);
        case R::Prod: return scatter_typed<R::Prod, T>(self, index, src, pos, b);
        case R::Max: return scatter_typed<R::Max, T>(self, index, src, pos, b);
        case R::Min: return scatter_typed<R::Min, T>(self, index, src, pos, b);
      }
    }
  });
  bad_value<<<1, 1, 0, current_stream()>>>(index.data_ptr<int64_t>(), pos, b);
  EMBER_CUDA_LAUNCH();
  if (read_back(b) == ULLONG_MAX) return std::nullopt;
  return int64_t(read_back(b + 1));
}

Tensor masked_select_kernel(const Tensor& src, const Tensor& mask) {
  const int64_t n = src.numel();
  DeviceGuard guard(device_index(src.device()));
  Device device = src.device();
  cudaStream_t stream = current_stream();
  Tensor count = zeros({1}, TensorOptions(kInt64).device(device));
  const bool* keep = mask.data_ptr<bool>();
  int64_t* c = count.data_ptr<int64_t>();
  if (n > 0) {
    auto ones = thrust::make_transform_iterator(keep, ToCount{});
    cub_call(device, [&](void* temp, size_t& size) { return cub::DeviceReduce::Sum(temp, size, ones, c, n, stream); });
  }
  Tensor out = empty({read_back(c)}, src.options());
  if (out.numel() == 0) return out;
  visit_bits(src.element_size(), [&]<typename U>(U) {
    cub_call(device, [&](void* temp, size_t& size) {
      return cub::DeviceSelect::Flagged(temp, size, static_cast<const U*>(src.data_ptr()), keep,
                                        static_cast<U*>(out.data_ptr()), c, n, stream);
    });
  });
  return out;
}

}  // namespace ember::cuda_backend

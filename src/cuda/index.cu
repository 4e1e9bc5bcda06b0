// Advanced indexing on CUDA: gather (x[idx]) and scatter (x[idx] = v, index_put_ with accumulate), one thread per
// element of the core tensor (offsets.numel(), rest...). Offsets are 64-bit; the core index and the rest block's
// offsets run in 32-bit arithmetic where they fit.
#include <cstring>

#include "../functors/compute.h"
#include "bits.h"
#include "elementwise.cuh"
#include "ember/creation.h"
#include "kernels.h"

namespace ember::cuda_backend {

namespace {

// Where core element i lives, in elements from the base: offsets[i / rest] plus the rest block's offset of
// position i % rest (the block's sizes and strides, innermost first, unless it is one contiguous run).
template <typename Index>
struct CoreOffsets {
  const int64_t* offsets;
  Index rest;
  bool contiguous;
  OffsetCalc<1, Index> block;

  __device__ int64_t operator()(int64_t linear) const {
    Index i = Index(linear), j = i / rest, r = i - j * rest;
    if (contiguous) return offsets[j] + r;
    Index at[1];
    block.offsets(r, at);
    return offsets[j] + at[0];
  }
};

// `offsets` on `device` (copied there when the op layer computed them elsewhere, the host; `keep` holds the copy).
const int64_t* device_offsets(const Tensor& offsets, Device device, Tensor& keep) {
  if (offsets.device() == device) return offsets.data_ptr<int64_t>();
  Tensor host = offsets.contiguous();
  keep = empty(host.sizes(), host.options().with_device(device));
  size_t bytes = size_t(host.numel()) * sizeof(int64_t);
  if (bytes) {
    EMBER_CUDA_CHECK(cudaMemcpyAsync(keep.data_ptr(), host.data_ptr(), bytes, cudaMemcpyDefault, current_stream()));
  }
  return keep.data_ptr<int64_t>();
}

// Calls fn(CoreOffsets<Index>) for a core of n elements, Index int32_t where the core and the block fit it.
template <typename Fn>
void with_core_offsets(const int64_t* offsets, int64_t n, IntArrayRef rest_sizes, IntArrayRef rest_strides, Fn&& fn) {
  int ndim = int(rest_sizes.size());
  EMBER_CHECK(ndim <= kMaxDims, NotImplementedError, "CUDA indexing takes at most ", kMaxDims,
              " dims besides the indexed ones; this tensor has ", ndim);
  int64_t rest = 1, reach = 0;
  for (int d = 0; d < ndim; ++d) {
    rest *= rest_sizes[size_t(d)];
    int64_t stride = rest_strides[size_t(d)];
    reach += (rest_sizes[size_t(d)] - 1) * (stride < 0 ? -stride : stride);
  }
  auto make = [&]<typename Index>(Index) {
    CoreOffsets<Index> c{offsets, Index(rest), is_contiguous_run(rest_sizes, rest_strides), {}};
    c.block.ndim = ndim;
    for (int d = 0; d < ndim; ++d) {
      c.block.sizes[ndim - 1 - d] = Index(rest_sizes[size_t(d)]);
      c.block.strides[ndim - 1 - d][0] = Index(rest_strides[size_t(d)]);
    }
    fn(c);
  };
  if (n <= INT32_MAX && reach <= INT32_MAX) make(int32_t{});
  else make(int64_t{});
}

// Moves core[i] from (gather) or to (scatter) base[where(i)], one element per thread.
template <bool Scatter, typename U, typename Where>
__global__ void move_kernel(U* base, U* core, int64_t n, Where where) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    U* far = base + where(i);
    if constexpr (Scatter) *far = core[i];
    else core[i] = *far;
  }
}

// The same for rest blocks that are contiguous runs of a multiple of 16 bytes: 16 bytes per thread, in one vector
// access where both addresses allow it.
template <bool Scatter, typename U, typename Index>
__global__ void move_runs_kernel(U* base, U* core, const int64_t* offsets, Index units_per_run, int64_t units) {
  constexpr int V = 16 / sizeof(U);
  for (int64_t u = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; u < units; u += int64_t(gridDim.x) * blockDim.x) {
    Index k = Index(u), j = k / units_per_run;
    U* far = base + offsets[j] + int64_t(k - j * units_per_run) * V;
    U* near = core + u * V;
    if ((reinterpret_cast<uintptr_t>(far) | reinterpret_cast<uintptr_t>(near)) % 16 == 0) {
      if constexpr (Scatter) *reinterpret_cast<uint4*>(far) = *reinterpret_cast<const uint4*>(near);
      else *reinterpret_cast<uint4*>(near) = *reinterpret_cast<const uint4*>(far);
      continue;
    }
    for (int e = 0; e < V; ++e) {
      if constexpr (Scatter) far[e] = near[e];
      else near[e] = far[e];
    }
  }
}

// Gathers (or scatters, without accumulating) the core from (to) `t`'s elements: bits of the element's size.
template <bool Scatter>
void move(const Tensor& t, int64_t base_offset, IntArrayRef rest_sizes, IntArrayRef rest_strides,
          const int64_t* offsets, const Tensor& core) {
  int64_t n = core.numel(), item = int64_t(t.element_size()), run = item;
  for (int64_t s : rest_sizes) run *= s;
  cudaStream_t stream = current_stream();
  visit_bits(size_t(item), [&]<typename U>(U) {
    U* base = static_cast<U*>(t.storage().data()) + base_offset;
    U* near = static_cast<U*>(core.data_ptr());
    if (run % 16 == 0 && is_contiguous_run(rest_sizes, rest_strides)) {
      int64_t units = n * item / 16;
      if (units <= INT32_MAX) {
        move_runs_kernel<Scatter, U, int32_t><<<grid_for(units, 1), kBlockThreads, 0, stream>>>(
            base, near, offsets, int32_t(run / 16), units);
      } else {
        move_runs_kernel<Scatter, U, int64_t><<<grid_for(units, 1), kBlockThreads, 0, stream>>>(
            base, near, offsets, run / 16, units);
      }
      return;
    }
    with_core_offsets(offsets, n, rest_sizes, rest_strides, [&](const auto& where) {
      move_kernel<Scatter><<<grid_for(n, 1), kBlockThreads, 0, stream>>>(base, near, n, where);
    });
  });
  EMBER_CUDA_LAUNCH();
}

template <typename T>
__device__ T plus(T a, T b) {
  using functors::Compute;
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else return T(Compute<T>(a) + Compute<T>(b));
}

// *p += v atomically: hardware atomicAdd for 4- and 8-byte types, else a compare-and-swap loop on the
// 32-bit word that holds the element.
template <typename T>
__device__ void atomic_add(T* p, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(p, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else {
    static_assert(sizeof(T) < 4);
    using U = typename Bits<sizeof(T)>::type;
    auto address = reinterpret_cast<uintptr_t>(p);
    auto* word = reinterpret_cast<unsigned int*>(address & ~uintptr_t(3));
    unsigned shift = unsigned(address & 3) * 8;
    unsigned mask = ((1u << (8 * sizeof(T))) - 1) << shift;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      U bits = U((assumed & mask) >> shift);
      T current;
      memcpy(&current, &bits, sizeof(T));
      T next = plus(current, v);
      memcpy(&bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, (assumed & ~mask) | (unsigned(bits) << shift));
    } while (old != assumed);
  }
}

template <typename T, typename Where>
__global__ void accumulate_kernel(T* dst, const T* core, int64_t n, Where where) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    atomic_add(dst + where(i), core[i]);
  }
}

}  // namespace

void index_gather_kernel(const Tensor& src, int64_t base_offset, IntArrayRef rest_sizes, IntArrayRef rest_strides,
                         const Tensor& offsets, const Tensor& core) {
  if (core.numel() == 0) return;
  DeviceGuard guard(device_index(src.device()));
  Tensor keep;
  move<false>(src, base_offset, rest_sizes, rest_strides, device_offsets(offsets, src.device(), keep), core);
}

void index_scatter_kernel(const Tensor& dst, int64_t base_offset, IntArrayRef rest_sizes, IntArrayRef rest_strides,
                          const Tensor& offsets, const Tensor& core, bool accumulate) {
  int64_t n = core.numel();
  if (n == 0) return;
  DeviceGuard guard(device_index(dst.device()));
  Tensor keep;
  const int64_t* off = device_offsets(offsets, dst.device(), keep);
  if (!accumulate) return move<true>(dst, base_offset, rest_sizes, rest_strides, off, core);
  cudaStream_t stream = current_stream();
  with_core_offsets(off, n, rest_sizes, rest_strides, [&](const auto& where) {
    visit_dtype(dst.dtype(), [&]<typename T>(T) {
      T* to = static_cast<T*>(dst.storage().data()) + base_offset;
      accumulate_kernel<<<grid_for(n, 1), kBlockThreads, 0, stream>>>(to, core.data_ptr<T>(), n, where);
    });
  });
  EMBER_CUDA_LAUNCH();
}

}  // namespace ember::cuda_backend

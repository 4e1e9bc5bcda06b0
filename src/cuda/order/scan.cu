// Row scans on CUDA with CUB's scan by key (the key: each element's row): cumsum/cumprod in the op layer's
// accumulator dtype, and cummax/cummin as a scan of (value, index) pairs.
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../../functors/order.h"
#include "order.cuh"

namespace ember::cuda_backend {

namespace {

template <typename A>
struct Combine {
  bool product;
  __host__ __device__ A operator()(A a, A b) const { return product ? a * b : a + b; }
};

// A running extreme: value v (compute type) at index i of its row.
template <typename C>
struct Extreme {
  C v;
  int64_t i;
};

template <typename T>
struct ExtremeAt {
  const T* x;
  int64_t n;
  __host__ __device__ Extreme<Compute<T>> operator()(int64_t p) const { return {Compute<T>(x[p]), p % n}; }
};

// The later of two segments' extremes where it wins: a NaN always takes over (a NaN before it stays unless the
// later one is a NaN too), and ties go to the later element, as torch's sequential loop.
template <typename C>
struct Later {
  bool is_max;
  __host__ __device__ Extreme<C> operator()(const Extreme<C>& a, const Extreme<C>& b) const {
    bool bn = b.v != b.v, an = a.v != a.v;
    return bn || (!an && (is_max ? b.v >= a.v : b.v <= a.v)) ? b : a;
  }
};

template <typename T, typename C>
__global__ void extreme_out_kernel(const T* x, int64_t total, int64_t n, const Extreme<C>* scanned, T* values,
                                   int64_t* indices) {
  for (int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < total; p += int64_t(gridDim.x) * blockDim.x) {
    int64_t at = scanned[p].i;
    values[p] = x[p - p % n + at];
    indices[p] = at;
  }
}

auto row_keys(int64_t n) {
  return thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0), RowOf{n});
}

}  // namespace

void scan_kernel(const Tensor& rows, const Tensor& out, bool product) {
  const int64_t total = rows.numel(), n = rows.sizes()[1];
  if (total == 0) return;
  DeviceGuard guard(device_index(rows.device()));
  visit_dtype(rows.dtype(), [&]<typename A>(A) {
    if constexpr (std::is_same_v<A, double> || std::is_same_v<A, float> || std::is_same_v<A, int64_t>) {
      const A* in = rows.data_ptr<A>();
      Tensor dst = out.is_same(rows) ? empty_like(out) : out;  // CUB's scan reads and writes separate buffers
      A* o = dst.data_ptr<A>();
      cub_call(rows.device(), [&](void* temp, size_t& size) {
        return cub::DeviceScan::InclusiveScanByKey(temp, size, row_keys(n), in, o, Combine<A>{product}, total,
                                                   ::cuda::std::equal_to<int64_t>{}, current_stream());
      });
      if (!dst.is_same(out)) {
        EMBER_CUDA_CHECK(cudaMemcpyAsync(out.data_ptr(), o, size_t(total) * sizeof(A), cudaMemcpyDeviceToDevice,
                                         current_stream()));
      }
    } else {
      throw Error("scan: the op layer scans in int64, float32 or float64");
    }
  });
}

// rows: int64, float32 or float64 (the op layer converts the narrower types, exactly).
void cum_extremum_kernel(bool is_max, const Tensor& rows, const Tensor& values, const Tensor& indices) {
  const int64_t total = rows.numel(), n = rows.sizes()[1];
  if (total == 0) return;
  DeviceGuard guard(device_index(rows.device()));
  functors::visit_scanned(rows.dtype(), [&]<typename T>(T) {
    using C = Compute<T>;
    const T* x = rows.data_ptr<T>();
    Tensor store = empty({total * int64_t(sizeof(Extreme<C>))}, TensorOptions(kUInt8).device(rows.device()));
    auto* scanned = static_cast<Extreme<C>*>(store.data_ptr());
    auto pairs = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0), ExtremeAt<T>{x, n});
    cub_call(rows.device(), [&](void* temp, size_t& size) {
      return cub::DeviceScan::InclusiveScanByKey(temp, size, row_keys(n), pairs, scanned, Later<C>{is_max}, total,
                                                 ::cuda::std::equal_to<int64_t>{}, current_stream());
    });
    extreme_out_kernel<T, C><<<blocks_for(total), kBlockThreads, 0, current_stream()>>>(
        x, total, n, scanned, values.data_ptr<T>(), indices.data_ptr<int64_t>());
    EMBER_CUDA_LAUNCH();
  });
}

}  // namespace ember::cuda_backend

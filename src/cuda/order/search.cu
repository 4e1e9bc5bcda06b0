// searchsorted, histc and the runs of equal neighbours behind unique on CUDA, with the CPU's comparisons and
// rounding (src/cpu/search_kernel.cpp).
#include <cmath>
#include <limits>

#include <cub/device/device_scan.cuh>

#include "../../functors/order.h"
#include "order.cuh"

namespace ember::cuda_backend {

namespace {

template <typename T, typename I>
__global__ void searchsorted_rows(const T* bnd, const T* val, I* out, int64_t total, int64_t m, int64_t n, bool shared,
                                  bool right) {
  for (int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < total; p += int64_t(gridDim.x) * blockDim.x) {
    out[p] = I(functors::insertion_point(bnd + (shared ? 0 : p / m) * n, n, Compute<T>(val[p]), right));
  }
}

// Each element's bin, computed in the element type as the CPU (each step rounded to T); counts per bin.
template <typename T>
__global__ void histc_count(const T* x, int64_t n, int64_t bins, double min, double max, unsigned long long* counts) {
  using C = Compute<T>;
  auto round = [](C v) { return C(T(v)); };
  const C lo = round(C(min)), hi = round(C(max));
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    C v = C(x[i]);
    if (!(v >= lo && v <= hi)) continue;
    auto pos = static_cast<int64_t>(round(round(round(v - lo) * round(C(bins))) / round(hi - lo)));
    if (pos == bins) pos -= 1;
    atomicAdd(counts + pos, 1ull);
  }
}

// A count as the CPU's sum of ones in T reaches it: T stops growing at 2^(significand bits) (2048 for float16).
template <typename T>
__global__ void histc_write(const unsigned long long* counts, int64_t bins, double limit, T* out) {
  for (int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < bins; b += int64_t(gridDim.x) * blockDim.x) {
    out[b] = T(Compute<T>(min(double(counts[b]), limit)));
  }
}

// 1 where element i starts a run (the first, or unequal to the one before: NaN != NaN), else 0.
template <typename T>
__device__ bool starts_run(const T* x, int64_t i) {
  return i == 0 || Compute<T>(x[i]) != Compute<T>(x[i - 1]);
}

template <typename T>
__global__ void run_starts(const T* x, int64_t n, int64_t* flags) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    flags[i] = starts_run(x, i);
  }
}

// runs[i] (the count of run starts up to i) becomes i's run number; each run's first element gives its value and
// start.
template <typename T>
__global__ void run_values(const T* x, int64_t n, int64_t* runs, T* values, int64_t* start) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t g = runs[i] - 1;
    runs[i] = g;
    if (starts_run(x, i)) {
      values[g] = x[i];
      start[g] = i;
    }
  }
}

__global__ void run_lengths(const int64_t* start, int64_t runs, int64_t n, int64_t* counts) {
  for (int64_t g = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; g < runs; g += int64_t(gridDim.x) * blockDim.x) {
    counts[g] = (g + 1 < runs ? start[g + 1] : n) - start[g];
  }
}

}  // namespace

void searchsorted_kernel(const Tensor& boundaries, const Tensor& values, const Tensor& out, bool right) {
  const int64_t R = values.sizes()[0], m = values.sizes()[1], n = boundaries.sizes()[1], total = R * m;
  if (total == 0) return;
  const bool shared = boundaries.sizes()[0] == 1 && R != 1;
  DeviceGuard guard(device_index(values.device()));
  visit_sortable(values.dtype(), [&]<typename T>(T) {
    auto launch = [&]<typename I>(I* o) {
      searchsorted_rows<T, I><<<blocks_for(total), kBlockThreads, 0, current_stream()>>>(
          boundaries.data_ptr<T>(), values.data_ptr<T>(), o, total, m, n, shared, right);
      EMBER_CUDA_LAUNCH();
    };
    if (out.dtype() == kInt32) launch(out.data_ptr<int32_t>());
    else launch(out.data_ptr<int64_t>());
  });
}

void histc_kernel(const Tensor& x, const Tensor& out, double min, double max) {
  const int64_t n = x.numel(), bins = out.numel();
  DeviceGuard guard(device_index(x.device()));
  visit_sortable(x.dtype(), [&]<typename T>(T) {
    if constexpr (!std::is_integral_v<T>) {
      Tensor counts = zeros({bins}, TensorOptions(kInt64).device(x.device()));
      auto* c = reinterpret_cast<unsigned long long*>(counts.data_ptr<int64_t>());
      if (n > 0) {
        histc_count<T><<<blocks_for(n), kBlockThreads, 0, current_stream()>>>(x.data_ptr<T>(), n, bins, min, max, c);
        EMBER_CUDA_LAUNCH();
      }
      constexpr int digits = std::is_same_v<T, Half> ? 11 : std::is_same_v<T, BFloat16> ? 8
                             : std::numeric_limits<T>::digits;
      histc_write<T><<<blocks_for(bins), kBlockThreads, 0, current_stream()>>>(c, bins, std::ldexp(1.0, digits),
                                                                              out.data_ptr<T>());
      EMBER_CUDA_LAUNCH();
    }
  });
}

int64_t unique_runs_kernel(const Tensor& x, const Tensor& values, const Tensor& counts, const Tensor& group) {
  const int64_t n = x.numel();
  if (n == 0) return 0;
  DeviceGuard guard(device_index(x.device()));
  int64_t runs = 0;
  visit_sortable(x.dtype(), [&]<typename T>(T) {
    const T* in = x.data_ptr<T>();
    TensorOptions longs = TensorOptions(kInt64).device(x.device());
    Tensor flags = empty({n}, longs), start = empty({n}, longs);
    Tensor numbers = group.defined() ? group : empty({n}, longs);
    int64_t* f = flags.data_ptr<int64_t>();
    int64_t* g = numbers.data_ptr<int64_t>();
    cudaStream_t stream = current_stream();
    run_starts<T><<<blocks_for(n), kBlockThreads, 0, stream>>>(in, n, f);
    EMBER_CUDA_LAUNCH();
    cub_call(x.device(), [&](void* temp, size_t& size) {
      return cub::DeviceScan::InclusiveSum(temp, size, f, g, n, stream);
    });
    runs = read_back(g + n - 1);
    run_values<T><<<blocks_for(n), kBlockThreads, 0, stream>>>(in, n, g, values.data_ptr<T>(),
                                                               start.data_ptr<int64_t>());
    EMBER_CUDA_LAUNCH();
    if (counts.defined()) {
      run_lengths<<<blocks_for(runs), kBlockThreads, 0, stream>>>(start.data_ptr<int64_t>(), runs, n,
                                                                   counts.data_ptr<int64_t>());
      EMBER_CUDA_LAUNCH();
    }
  });
  return runs;
}

}  // namespace ember::cuda_backend

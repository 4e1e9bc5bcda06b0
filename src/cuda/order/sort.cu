// sort, topk and the row statistics (kthvalue, median, nanmedian, mode) on CUDA: each element becomes an
// order-preserving key (order.cuh), CUB's radix sort (stable) orders (key, index) pairs row by row, and the results
// are read off the sorted rows. Equal elements keep their order (descending too), so a stable sort, the medians'
// indices and kthvalue's values match the CPU's; topk, kthvalue and mode may pick another of equal elements.
#include <algorithm>
#include <climits>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "order.cuh"

namespace ember::cuda_backend {

namespace {

template <typename T>
__global__ void keys_kernel(const T* x, int64_t total, int64_t n, bool descending, KeyOf<T>* keys, int64_t* idx) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    keys[i] = to_key(x[i], descending);
    idx[i] = i % n;
  }
}

// The rows of x (R, n) sorted by key: the sorted keys and each position's index within its row.
template <typename T>
struct Sorted {
  Tensor key_store, idx;
  const KeyOf<T>* keys() const { return static_cast<const KeyOf<T>*>(key_store.data_ptr()); }
};

template <typename T>
Sorted<T> sort_rows(const Tensor& x, bool descending) {
  using K = KeyOf<T>;
  const int64_t R = x.sizes()[0], n = x.sizes()[1], total = R * n;
  Device device = x.device();
  auto bytes = [&](int64_t count, int64_t size) { return empty({count * size}, TensorOptions(kUInt8).device(device)); };
  Tensor keys_in = bytes(total, sizeof(K)), keys_out = bytes(total, sizeof(K));
  Tensor idx_in = empty({total}, TensorOptions(kInt64).device(device)), idx_out = empty_like(idx_in);
  K* kin = static_cast<K*>(keys_in.data_ptr());
  K* kout = static_cast<K*>(keys_out.data_ptr());
  int64_t* iin = idx_in.data_ptr<int64_t>();
  int64_t* iout = idx_out.data_ptr<int64_t>();
  cudaStream_t stream = current_stream();
  keys_kernel<T><<<blocks_for(total), kBlockThreads, 0, stream>>>(x.data_ptr<T>(), total, n, descending, kin, iin);
  EMBER_CUDA_LAUNCH();
  if (R == 1 || n > INT_MAX) {  // a row at a time, 64-bit counts
    for (int64_t r = 0; r < R; ++r) {
      int64_t at = r * n;
      cub_call(device, [&](void* temp, size_t& size) {
        return cub::DeviceRadixSort::SortPairs(temp, size, kin + at, kout + at, iin + at, iout + at, n, 0,
                                               int(8 * sizeof(K)), stream);
      });
    }
  } else {  // rows as segments, as many per call as CUB's 32-bit item count allows
    const int64_t per_call = INT_MAX / n;
    for (int64_t r = 0; r < R; r += per_call) {
      int64_t rows = std::min(per_call, R - r), at = r * n;
      auto starts = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0), RowStart{n});
      cub_call(device, [&](void* temp, size_t& size) {
        return cub::DeviceSegmentedRadixSort::SortPairs(temp, size, kin + at, kout + at, iin + at, iout + at,
                                                        int(rows * n), int(rows), starts, starts + 1, 0,
                                                        int(8 * sizeof(K)), stream);
      });
    }
  }
  return {keys_out, idx_out};
}

// For each (row, j < m): values = x[row, s] and indices = s (when given) for s = idx[row, j], the j-th of the
// row's sorted positions.
template <typename T>
__global__ void take_kernel(const T* x, int64_t n, const int64_t* idx, int64_t total, int64_t m, T* values,
                            int64_t* indices) {
  for (int64_t o = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < total; o += int64_t(gridDim.x) * blockDim.x) {
    int64_t r = o / m, s = idx[r * n + o % m];
    values[o] = x[r * n + s];
    if (indices) indices[o] = s;
  }
}

template <typename T>
void take(const Tensor& x, const Sorted<T>& sorted, int64_t m, const Tensor& values, const Tensor& indices) {
  int64_t total = x.sizes()[0] * m;
  take_kernel<T><<<blocks_for(total), kBlockThreads, 0, current_stream()>>>(
      x.data_ptr<T>(), x.sizes()[1], sorted.idx.template data_ptr<int64_t>(), total, m, values.data_ptr<T>(),
      indices.defined() ? indices.data_ptr<int64_t>() : nullptr);
  EMBER_CUDA_LAUNCH();
}

// One thread per row of the ascending sort: the sorted position the statistic picks, then its element.
template <typename T>
__global__ void row_stat_kernel_rows(RowStat stat, const T* x, int64_t R, int64_t n, int64_t k, const KeyOf<T>* keys,
                                     const int64_t* idx, T* values, int64_t* indices) {
  using K = KeyOf<T>;
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < R; r += int64_t(gridDim.x) * blockDim.x) {
    const K* kr = keys + r * n;
    int64_t pos = 0;
    if (stat == RowStat::Kth) {
      pos = k - 1;
    } else if (stat == RowStat::Mode) {  // the last of the first longest run of equal keys
      int64_t best = 0, start = 0;
      for (int64_t i = 1; i <= n; ++i) {
        if (i < n && kr[i] == kr[i - 1]) continue;
        if (i - start > best) best = i - start, pos = i - 1;
        start = i;
      }
    } else {
      int64_t numbers = n;  // NaNs sort last: the count of the others
      if constexpr (!std::is_integral_v<T>) {
        int64_t lo = 0, hi = n;
        while (lo < hi) {
          int64_t mid = lo + (hi - lo) / 2;
          if (kr[mid] == K(~K(0))) hi = mid;
          else lo = mid + 1;
        }
        numbers = lo;
      }
      if (stat == RowStat::Median) pos = numbers < n ? numbers : (n - 1) / 2;  // a NaN row: its first NaN
      else pos = (numbers - 1) / 2;  // nanmedian; an all-NaN row gives position 0
    }
    int64_t at = idx[r * n + pos];
    values[r] = x[r * n + at];
    indices[r] = at;
  }
}

}  // namespace

void sort_kernel(const Tensor& rows, const Tensor& values, const Tensor& indices, bool descending, bool) {
  if (rows.numel() == 0) return;
  DeviceGuard guard(device_index(rows.device()));
  visit_sortable(rows.dtype(), [&]<typename T>(T) {
    take<T>(rows, sort_rows<T>(rows, descending), rows.sizes()[1], values, indices);
  });
}

void topk_kernel(const Tensor& rows, int64_t k, bool largest, bool, const Tensor& values, const Tensor& indices) {
  if (rows.numel() == 0 || k == 0) return;
  DeviceGuard guard(device_index(rows.device()));
  visit_sortable(rows.dtype(), [&]<typename T>(T) { take<T>(rows, sort_rows<T>(rows, largest), k, values, indices); });
}

void row_stat_kernel(RowStat stat, const Tensor& rows, int64_t k, const Tensor& values, const Tensor& indices) {
  if (rows.numel() == 0) return;
  DeviceGuard guard(device_index(rows.device()));
  visit_sortable(rows.dtype(), [&]<typename T>(T) {
    Sorted<T> sorted = sort_rows<T>(rows, false);
    int64_t R = rows.sizes()[0];
    row_stat_kernel_rows<T><<<blocks_for(R), kBlockThreads, 0, current_stream()>>>(
        stat, rows.data_ptr<T>(), R, rows.sizes()[1], k, sorted.keys(), sorted.idx.template data_ptr<int64_t>(),
        values.data_ptr<T>(), indices.data_ptr<int64_t>());
    EMBER_CUDA_LAUNCH();
  });
}

}  // namespace ember::cuda_backend

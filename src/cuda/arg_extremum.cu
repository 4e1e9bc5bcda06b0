// max/min along a dim with the index of the first extreme (a NaN counts as the extreme), per row of a contiguous
// (rows, n) tensor: a warp per row, or a block per long row; long rows of few outputs split into slices whose
// winners a second pass folds. Candidates compare in the compute type; ties go to the smaller index.
#include <algorithm>

#include "../functors/compute.h"
#include "ember/creation.h"
#include "kernels.h"
#include "reduce_common.cuh"

namespace ember::cuda_backend {

namespace {

// A candidate: value v at index i (i < 0: none yet).
template <typename C>
struct Best {
  C v;
  int64_t i;
};

template <typename C>
struct Better {
  bool is_max;
  // The preferred of two candidates.
  __device__ Best<C> operator()(Best<C> a, Best<C> b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    bool an = a.v != a.v, bn = b.v != b.v;
    bool take_b = an || bn ? bn && (!an || b.i < a.i)
                           : (a.v == b.v ? b.i < a.i : (is_max ? b.v > a.v : b.v < a.v));
    return take_b ? b : a;
  }
};

template <typename C>
__device__ Best<C> shfl_down(Best<C> b, int delta) {
  return {cuda_backend::shfl_down(b.v, delta), cuda_backend::shfl_down(b.i, delta)};
}

// For each (row, slice): the best of x[row, begin:end) (indices from `cand` when given: the second pass, over
// each row's slice winners). Writes the winner's index to `win` (row-major (rows, slices)), or the value and index
// to vals/idx.
template <typename T>
__global__ void __launch_bounds__(256) arg_kernel(const T* x, int64_t rows, int64_t n, const int64_t* cand,
                                                  int64_t len, int64_t chunk, int64_t slices, bool is_max, int group,
                                                  int64_t* win, T* vals, int64_t* idx) {
  using C = functors::Compute<T>;
  Better<C> f{is_max};
  __shared__ Best<C> smem[32];
  int per_block = blockDim.x / group, lane = threadIdx.x % group;
  for (int64_t item = int64_t(blockIdx.x) * per_block + threadIdx.x / group; item < rows * slices;
       item += int64_t(gridDim.x) * per_block) {
    int64_t row = item / slices, s = item % slices;
    const T* p = x + row * n;
    auto at = [&](int64_t k) { return cand ? cand[row * len + k] : k; };
    Best<C> b{C(0), -1};
    int64_t k = s * chunk + lane, end = min(len, s * chunk + chunk);
    for (; k + 3 * group < end; k += 4 * group) {  // four loads in flight
      Best<C> c[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) c[j].i = at(k + j * group);
#pragma unroll
      for (int j = 0; j < 4; ++j) c[j].v = convert<C>(p[c[j].i]);
#pragma unroll
      for (int j = 0; j < 4; ++j) b = f(b, c[j]);
    }
    for (; k < end; k += group) b = f(b, Best<C>{convert<C>(p[at(k)]), at(k)});
    b = group == 32 ? warp_fold(b, f) : block_fold(b, Best<C>{C(0), -1}, f, smem);
    if (lane != 0) continue;
    if (win != nullptr) {
      win[item] = b.i;
    } else {
      vals[row] = p[b.i];
      idx[row] = b.i;
    }
  }
}

template <typename T>
void launch(const T* x, int64_t rows, int64_t n, const int64_t* cand, int64_t len, int64_t chunk, int64_t slices,
            bool is_max, int64_t* win, T* vals, int64_t* idx) {
  int group = chunk >= 2048 || (chunk >= 256 && rows * slices < 1024) ? 256 : 32;  // a block for long runs or few
  int64_t blocks = std::min<int64_t>((rows * slices + 256 / group - 1) / (256 / group), int64_t(1) << 30);
  arg_kernel<T><<<unsigned(blocks), 256, 0, current_stream()>>>(x, rows, n, cand, len, chunk, slices, is_max, group,
                                                                 win, vals, idx);
  EMBER_CUDA_LAUNCH();
}

// Each row's extreme and its index, for x of type T.
template <typename T>
void arg_extremum_of(bool is_max, const Tensor& x, const Tensor& values, const Tensor& indices) {
  int64_t rows = x.sizes()[0], n = x.sizes()[1];
  const T* px = x.data_ptr<T>();
  T* vals = values.data_ptr<T>();
  int64_t* idx = indices.data_ptr<int64_t>();
  // Few long rows: slices of at least 16K elements, enough to fill the device twice.
  int64_t slices = std::clamp<int64_t>(int64_t(sm_count()) * 16 / rows, 1, std::max<int64_t>(1, n / 16384));
  if (slices == 1) return launch(px, rows, n, nullptr, n, n, 1, is_max, nullptr, vals, idx);
  int64_t chunk = (n + slices - 1) / slices;
  slices = (n + chunk - 1) / chunk;
  Tensor winners = empty({rows * slices}, indices.options());
  int64_t* win = winners.data_ptr<int64_t>();
  launch(px, rows, n, nullptr, n, chunk, slices, is_max, win, vals, idx);
  launch(px, rows, n, win, slices, slices, 1, is_max, nullptr, vals, idx);
}

}  // namespace

void arg_extremum_kernel(bool is_max, const Tensor& x, const Tensor& values, const Tensor& indices) {
  if (x.sizes()[0] == 0 || x.sizes()[1] == 0) return;
  DeviceGuard guard(device_index(x.device()));
  visit_dtype(x.dtype(), [&]<typename T>(T) {
    if constexpr (functors::is_float8<T>) throw Error("arg_extremum: the op layer reduces no float8 tensor");
    else arg_extremum_of<T>(is_max, x, values, indices);
  });
}

}  // namespace ember::cuda_backend

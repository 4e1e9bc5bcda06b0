// The scatter kernel (scatter, scatter_add, scatter_reduce and the index_* ops built on them) and masked_select.
#include "scatter_kernel.h"

#include <cstring>
#include <limits>
#include <memory>
#include <mutex>

#include "../functors/order.h"
#include "compute_type.h"
#include "ember/creation.h"
#include "ember/parallel.h"
#include "strided_loop.h"

namespace ember::cpu {

namespace {

using R = ScatterReduce;
using functors::scatter_combine;

// The value x with x (op) v == v for every v (-0.0 for sums: -0.0 + 0.0 is 0.0, and -0.0 + -0.0 stays -0.0).
template <R Op, typename T>
T identity() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) return Op == R::Prod || Op == R::Min;
  else if constexpr (Op == R::Sum) return std::is_floating_point_v<T> ? T(-0.0) : T(0);
  else if constexpr (Op == R::Prod) return T(1);
  else if constexpr (Op == R::Max) return L::has_infinity ? -L::infinity() : L::lowest();
  else return L::has_infinity ? L::infinity() : L::max();
}

// The first out-of-range index by position (positions are rows, or elements, in plan order).
struct FirstBad {
  std::mutex mutex;
  int64_t position = INT64_MAX;
  std::optional<int64_t> value;
  void note(int64_t at, int64_t v) {
    std::lock_guard<std::mutex> lock(mutex);
    if (at < position) position = at, value = v;
  }
};

// The largest output private_bins copies per thread.
constexpr int64_t kMaxPrivateBins = 1 << 16;

// One run along dim: target[index[i] * step] (op)= src[i] for i < n (index and src strides in bytes, 0 broadcasts
// src). Returns the position of the first index outside [0, size), which stops the run; -1 when none.
template <R Op, typename T>
int64_t scatter_run(char* target, int64_t step, int64_t size, const char* index, int64_t index_stride, const char* src,
                    int64_t src_stride, int64_t n) {
  const int64_t* ix = reinterpret_cast<const int64_t*>(index);
  const T* sv = reinterpret_cast<const T*>(src);
  T* t = reinterpret_cast<T*>(target);
  if (index_stride == 8 && src_stride == int64_t(sizeof(T)) && step == int64_t(sizeof(T))) {
    // dense runs into a dense target (private bins, 1-D outputs): plain arrays (measured: unrolling with one
    // branch per four indices, or a copy of the target per lane, is no faster)
    for (int64_t i = 0; i < n; ++i) {
      if (uint64_t(ix[i]) >= uint64_t(size)) return i;
      scatter_combine<Op>(t[ix[i]], sv[i]);
    }
    return -1;
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = *reinterpret_cast<const int64_t*>(index + i * index_stride);
    if (uint64_t(v) >= uint64_t(size)) return i;
    scatter_combine<Op>(*reinterpret_cast<T*>(target + v * step), *reinterpret_cast<const T*>(src + i * src_stride));
  }
  return -1;
}

// Reductions of long runs into a small output (scatter_add of many values into few bins): each thread reduces its
// share of every run into a private copy of the output, and the copies are merged in order at the end, so nothing
// is written when an index is out of range.
template <R Op, typename T>
std::optional<int64_t> private_bins(const StridedPlan<3>& plan, int64_t size, int64_t step, int64_t threads) {
  const int64_t rows = plan.rows(), inner = plan.inner_size();
  const int64_t index_stride = plan.strides[1][0], src_stride = plan.strides[2][0];
  std::vector<std::array<char*, 3>> row_base;
  for_each_row(plan, 0, rows, [&](const std::array<char*, 3>& p, int64_t, const std::array<int64_t, 3>&) {
    row_base.push_back(p);
  });
  int64_t chunks = std::min(threads, inner / kParallelGrain);
  std::vector<std::unique_ptr<T[]>> bins{size_t(chunks)};
  FirstBad bad;
  parallel_for(0, chunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      bins[size_t(c)].reset(new T[size_t(rows * size)]);
      T* bin = bins[size_t(c)].get();
      std::fill(bin, bin + rows * size, identity<Op, T>());
      int64_t lo = inner * c / chunks, hi = inner * (c + 1) / chunks;
      for (int64_t r = 0; r < rows; ++r) {
        const char* ix = row_base[size_t(r)][1] + lo * index_stride;
        int64_t at = scatter_run<Op, T>(reinterpret_cast<char*>(bin + r * size), sizeof(T), size, ix, index_stride,
                                        row_base[size_t(r)][2] + lo * src_stride, src_stride, hi - lo);
        if (at >= 0) bad.note(r * inner + lo + at, *reinterpret_cast<const int64_t*>(ix + at * index_stride));
      }
    }
  });
  if (bad.value) return bad.value;
  for (int64_t c = 0; c < chunks; ++c) {
    for (int64_t r = 0; r < rows; ++r) {
      const T* bin = bins[size_t(c)].get() + r * size;
      for (int64_t b = 0; b < size; ++b) {
        scatter_combine<Op>(*reinterpret_cast<T*>(row_base[size_t(r)][0] + b * step), bin[b]);
      }
    }
  }
  return std::nullopt;
}

template <R Op, typename T>
std::optional<int64_t> scatter_typed(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t size = self.sizes()[size_t(dim)], step = self.strides()[size_t(dim)] * int64_t(sizeof(T));
  DimVector self_strides(self.strides());
  self_strides[size_t(dim)] = 0;  // so dim sorts innermost: each row of the plan is one run along dim
  auto plan = make_plan<3>(index.sizes(), {IntArrayRef(self_strides), index.strides(), src.strides()},
                           {int64_t(sizeof(T)), 8, int64_t(sizeof(T))},
                           {static_cast<char*>(self.data_ptr()), static_cast<char*>(index.data_ptr()),
                            static_cast<char*>(src.data_ptr())});
  // One run: stops at the first index out of range.
  auto run = [&](const std::array<char*, 3>& p, int64_t n, const std::array<int64_t, 3>& s) -> std::optional<int64_t> {
    if (s[0] == 0) {  // a run along dim
      int64_t at = scatter_run<Op, T>(p[0], step, size, p[1], s[1], p[2], s[2], n);
      if (at >= 0) return *reinterpret_cast<const int64_t*>(p[1] + at * s[1]);
      return std::nullopt;
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
      if (uint64_t(v) >= uint64_t(size)) return v;
      scatter_combine<Op>(*reinterpret_cast<T*>(p[0] + i * s[0] + v * step),
                          *reinterpret_cast<const T*>(p[2] + i * s[2]));
    }
    return std::nullopt;
  };
  FirstBad bad;
  const int64_t rows = plan.rows(), inner = plan.inner_size(), threads = get_num_threads();
  std::array<int64_t, 3> strides{plan.strides[0][0], plan.strides[1][0], plan.strides[2][0]};
  if (index.sizes()[size_t(dim)] <= 1 && rows == 1) {  // no run along dim: every position has its own target
    parallel_for(0, inner, kParallelGrain, [&](int64_t b, int64_t e) {
      std::array<char*, 3> p = plan.base;
      for (int k = 0; k < 3; ++k) p[size_t(k)] += b * strides[size_t(k)];
      if (auto v = run(p, e - b, strides)) bad.note(b, *v);
    });
    return bad.value;
  }
  // (half-precision sums keep torch's serial rounding)
  if constexpr (Op != R::None && std::is_same_v<Compute<T>, T>) {
    if (threads > 1 && rows < threads && inner >= 2 * kParallelGrain && rows * size <= kMaxPrivateBins) {
      return private_bins<Op, T>(plan, size, step, threads);
    }
  }
  // Rows write disjoint targets: parallel over rows, each run in order.
  parallel_for(0, rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1)), [&](int64_t b, int64_t e) {
    int64_t r = b;
    for_each_row(plan, b, e, [&](const std::array<char*, 3>& p, int64_t n, const std::array<int64_t, 3>& s) {
      if (auto v = run(p, n, s)) bad.note(r, *v);
      ++r;
    });
  });
  return bad.value;
}

// Copies the kept elements of [begin, end) to `to` (branch-free: every element is written, the position advances
// past kept ones); stops after the last kept element, so nothing lands past this range's share of the output.
template <typename U>
void compress(const U* from, const bool* keep, int64_t begin, int64_t end, U* to) {
  while (end > begin && !keep[end - 1]) --end;
  int64_t k = 0;
  for (int64_t i = begin; i < end; ++i) {
    to[k] = from[i];
    k += keep[i];
  }
}

}  // namespace

std::optional<int64_t> scatter_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                      ScatterReduce op) {
  Unlocked unlocked(index.numel() > kUnlockElements);
  return visit_dtype(self.dtype(), [&]<typename T>(T) -> std::optional<int64_t> {
    if constexpr (is_float8<T>) {
      throw NotImplementedError("\"scatter_gather_tensor_cpu\" not implemented for float8 tensors");
    } else {
      switch (op) {
        case R::None: return scatter_typed<R::None, T>(self, dim, index, src);
        case R::Sum:
        case R::Mean: return scatter_typed<R::Sum, T>(self, dim, index, src);
        case R::Prod: return scatter_typed<R::Prod, T>(self, dim, index, src);
        case R::Max: return scatter_typed<R::Max, T>(self, dim, index, src);
        case R::Min: return scatter_typed<R::Min, T>(self, dim, index, src);
      }
      return std::nullopt;
    }
  });
}

// Two passes over chunks: count the kept elements of each (in parallel), then copy each chunk to its place.
Tensor masked_select_kernel(const Tensor& src, const Tensor& mask) {
  constexpr int64_t kChunk = 1 << 16;
  const int64_t n = src.numel(), chunks = (n + kChunk - 1) / kChunk;
  const bool* keep = mask.data_ptr<bool>();
  Unlocked unlocked(n > kUnlockElements);
  std::vector<int64_t> start(size_t(chunks) + 1, 0);
  parallel_for(0, chunks, 4, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const uint8_t* m = reinterpret_cast<const uint8_t*>(keep);
      int64_t count = 0;
      for (int64_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) count += m[i];
      start[size_t(c) + 1] = count;
    }
  });
  for (int64_t c = 0; c < chunks; ++c) start[size_t(c) + 1] += start[size_t(c)];
  Tensor out = empty({start.back()}, src.options());
  auto copy = [&]<typename U>(U) {
    const U* from = static_cast<const U*>(src.data_ptr());
    U* to = static_cast<U*>(out.data_ptr());
    parallel_for(0, chunks, 4, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) compress(from, keep, c * kChunk, std::min(n, (c + 1) * kChunk), to + start[size_t(c)]);
    });
  };
  switch (src.element_size()) {
    case 1: copy(uint8_t{}); break;
    case 2: copy(uint16_t{}); break;
    case 4: copy(uint32_t{}); break;
    default: copy(uint64_t{}); break;
  }
  return out;
}

}  // namespace ember::cpu

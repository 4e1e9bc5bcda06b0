// The reduction kernels (sum, prod, max, min, all, any): an input folded into float64/int64 accumulators as on the CPU.
// The plan splits into kept dims (the accumulator's) and reduced dims (its stride-0 dims). Reduced dims innermost:
// a warp or a block folds each output (16-byte loads where the reduced elements are contiguous). Kept dims
// innermost (or short reduced runs): each thread of a 32-wide row of outputs walks its column (coalesced), 8 threads
// per column. Long reductions split into slices whose partials a second pass folds in order: no atomics,
// deterministic results.
// Shared by each op group's file (sum.cu, prod.cu, extrema.cu, integral.cu) and the whole-tensor
// pass (whole.cu).
#pragma once
#include <algorithm>
#include <cmath>

#include "../../functors/compute.h"
#include "../elementwise.cuh"
#include "../kernels.h"
#include "../reduce_common.cuh"
#include "ember/creation.h"
#include "family.h"

namespace ember::cuda_backend::reduction {

template <typename T>
using acc_t = std::conditional_t<std::is_integral_v<T>, int64_t, double>;

// The fold of op over accumulators; a floating product rounds to T at each step, as the CPU kernel's.
template <typename T, ReduceOp Op>
struct Fold {
  using Acc = acc_t<T>;
  __host__ __device__ static Acc identity() {
    if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::Any) return Acc(0);
    else if constexpr (Op == ReduceOp::Prod || Op == ReduceOp::All) return Acc(1);
    else if constexpr (std::is_integral_v<Acc>) return Op == ReduceOp::Max ? INT64_MIN : INT64_MAX;
    else return Op == ReduceOp::Max ? -INFINITY : INFINITY;
  }
  __device__ Acc operator()(Acc a, Acc b) const {
    if constexpr (Op == ReduceOp::Sum) {
      if constexpr (std::is_integral_v<Acc>) return Acc(uint64_t(a) + uint64_t(b));  // wraps, as the CPU's
      else return a + b;
    } else if constexpr (Op == ReduceOp::Prod) {
      if constexpr (std::is_integral_v<T>) return Acc(uint64_t(a) * uint64_t(b));
      else return convert<Acc>(convert<T>(a * b));
    } else if constexpr (Op == ReduceOp::Max) {
      return (a != a || a > b) ? a : b;  // NaN wins
    } else if constexpr (Op == ReduceOp::Min) {
      return (a != a || a < b) ? a : b;
    } else if constexpr (Op == ReduceOp::All) {
      return Acc(a != 0 && b != 0);
    } else {
      return Acc(a != 0 || b != 0);
    }
  }
};

// Where the work lies: output m's input and accumulator offsets (bytes), reduced element r's input offset, and
// the split of each output's `len` reduced elements into `slices` of `chunk`.
struct Work {
  OffsetCalc<2, int64_t> kept;
  OffsetCalc<1, int64_t> red;
  int64_t outputs, len, chunk, slices;
  bool contiguous;  // the reduced elements of an output are adjacent (one dim of unit stride)

  __device__ int64_t red_offset(int64_t r) const {
    if (red.ndim == 1) return r * red.strides[0][0];
    int64_t off[1];
    red.offsets(r, off);
    return off[0];
  }
};

// Folds the n contiguous elements at p (this thread: lane, lane + group, ...) into a, with 16-byte loads.
template <typename L, typename F, typename Acc>
__device__ Acc fold_span(const L* p, int64_t n, int lane, int group, F f, Acc a) {
  constexpr int VEC = 16 / sizeof(L);
  int64_t head = ((16 - (reinterpret_cast<uintptr_t>(p) & 15)) & 15) / sizeof(L);
  head = head < n ? head : n;
  if (lane < head) a = f(a, convert<Acc>(p[lane]));
  p += head;
  n -= head;
  const auto* v = reinterpret_cast<const Vec<L, VEC>*>(p);
  int64_t nvec = n / VEC, i = lane;
  for (; i + 3 * group < nvec; i += 4 * group) {  // four loads in flight
    Vec<L, VEC> x[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) x[k] = v[i + k * group];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
#pragma unroll
      for (int j = 0; j < VEC; ++j) a = f(a, convert<Acc>(x[k].v[j]));
    }
  }
  for (; i < nvec; i += group) {
    Vec<L, VEC> x = v[i];
#pragma unroll
    for (int j = 0; j < VEC; ++j) a = f(a, convert<Acc>(x.v[j]));
  }
  for (int64_t t = nvec * VEC + lane; t < n; t += group) a = f(a, convert<Acc>(p[t]));
  return a;
}

// Stores output m's (slice s's) folded value: into the partials, or folded into its accumulator.
template <typename F, typename Acc>
__device__ void store(const Work& w, char* acc, Acc* partial, int64_t m, int64_t s, int64_t acc_off, Acc a, F f) {
  if (partial != nullptr) {
    partial[m * w.slices + s] = a;
  } else {
    Acc* out = reinterpret_cast<Acc*>(acc + acc_off);
    *out = f(*out, a);
  }
}

// Reduced dims innermost: a group of `group` threads (32, or the 256 of the block) per (output, slice).
template <typename L, typename T, ReduceOp Op>
__global__ void __launch_bounds__(256) reduce_inner(Work w, const char* in, char* acc, acc_t<T>* partial, int group) {
  using Acc = acc_t<T>;
  Fold<T, Op> f;
  __shared__ Acc smem[32];
  int per_block = blockDim.x / group, lane = threadIdx.x % group;
  int64_t items = w.outputs * w.slices;
  for (int64_t item = int64_t(blockIdx.x) * per_block + threadIdx.x / group; item < items;
       item += int64_t(gridDim.x) * per_block) {
    int64_t m = item / w.slices, s = item % w.slices;
    int64_t off[2];
    w.kept.offsets(m, off);
    int64_t begin = s * w.chunk, end = min(w.len, begin + w.chunk);
    Acc a = f.identity();
    if (w.contiguous) {
      a = fold_span(reinterpret_cast<const L*>(in + off[0]) + begin, end - begin, lane, group, f, a);
    } else {
      for (int64_t r = begin + lane; r < end; r += group) {
        a = f(a, convert<Acc>(*reinterpret_cast<const L*>(in + off[0] + w.red_offset(r))));
      }
    }
    a = group == 32 ? warp_fold(a, f) : block_fold(a, f.identity(), f, smem);
    if (lane == 0) store(w, acc, partial, m, s, off[1], a, f);
  }
}

// Kept dims innermost: block (32, 8); threadIdx.x picks the output, threadIdx.y every 8th reduced element of
// slice blockIdx.y.
template <typename L, typename T, ReduceOp Op>
__global__ void __launch_bounds__(256) reduce_outer(Work w, const char* in, char* acc, acc_t<T>* partial) {
  using Acc = acc_t<T>;
  Fold<T, Op> f;
  __shared__ Acc smem[8][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  int64_t m = int64_t(blockIdx.x) * 32 + tx, s = blockIdx.y;
  int64_t off[2] = {0, 0};
  Acc a = f.identity();
  if (m < w.outputs) {
    w.kept.offsets(m, off);
    const char* base = in + off[0];
    int64_t r = s * w.chunk + ty, end = min(w.len, s * w.chunk + w.chunk);
    for (; r + 56 < end; r += 64) {  // eight loads in flight
      L x[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) x[k] = *reinterpret_cast<const L*>(base + w.red_offset(r + 8 * k));
#pragma unroll
      for (int k = 0; k < 8; ++k) a = f(a, convert<Acc>(x[k]));
    }
    for (; r < end; r += 8) a = f(a, convert<Acc>(*reinterpret_cast<const L*>(base + w.red_offset(r))));
  }
  smem[ty][tx] = a;
  __syncthreads();
  if (ty == 0 && m < w.outputs) {
#pragma unroll
    for (int k = 1; k < 8; ++k) a = f(a, smem[k][tx]);
    store(w, acc, partial, m, s, off[1], a, f);
  }
}

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Splits each output's len elements into about `slices` slices of at least `min_chunk` elements (at most
// max_slices); chunks are multiples of 16 elements, so the slices of an aligned row stay aligned.
inline void split(Work& w, int64_t slices, int64_t min_chunk, int64_t max_slices) {
  slices = std::clamp<int64_t>(slices, 1, std::clamp<int64_t>(w.len / min_chunk, 1, max_slices));
  w.chunk = ceil_div(ceil_div(w.len, slices), 16) * 16;
  w.slices = ceil_div(w.len, w.chunk);
}

// The threads folding one (output, slice) of `len` elements, `items` of them: a block for long runs or for few
// items, else a warp.
inline int group_for(int64_t len, int64_t items) { return len >= 4096 || (len >= 256 && items < 1024) ? 256 : 32; }

template <typename L, typename T, ReduceOp Op>
void launch_inner(const Work& w, const char* in, char* acc, acc_t<T>* partial) {
  int group = group_for(w.len, w.outputs * w.slices);
  int64_t blocks = std::min<int64_t>(ceil_div(w.outputs * w.slices, 256 / group), int64_t(1) << 30);
  reduce_inner<L, T, Op><<<unsigned(blocks), 256, 0, current_stream()>>>(w, in, acc, partial, group);
  EMBER_CUDA_LAUNCH();
}

// The first pass left one partial per (output, slice) in `partial` (output-major): fold each output's in order.
template <typename T, ReduceOp Op>
void finish_slices(const Work& first, const StridedPlan<2>& kept, const Tensor& partial, char* acc) {
  using Acc = acc_t<T>;
  // A floating product rounds to T at each step; other folds are the same for every T of one Acc.
  using R = std::conditional_t<Op == ReduceOp::Prod && !std::is_integral_v<T>, T, Acc>;
  StridedPlan<2> rows = kept;
  int64_t stride = first.slices * int64_t(sizeof(Acc));
  for (int64_t d = 0; d < rows.ndim(); ++d) {
    rows.strides[0][d] = stride;
    stride *= rows.sizes[d];
  }
  StridedPlan<1> red;
  red.sizes.push_back(first.slices);
  red.strides[0].push_back(int64_t(sizeof(Acc)));
  Work w{make_offset_calc<2, int64_t>(rows), make_offset_calc<1, int64_t>(red), first.outputs, first.slices,
         first.slices, 1, true};
  launch_inner<Acc, R, Op>(w, static_cast<const char*>(partial.data_ptr()), acc, nullptr);
}

template <typename T, ReduceOp Op>
void run(const Tensor& acc, const Tensor& input) {
  using Acc = acc_t<T>;
  // Planned with the input first: its smallest stride is the innermost dim.
  auto plan = make_plan<2>(input.sizes(), {input.strides(), acc.strides()}, {int64_t(sizeof(T)), int64_t(sizeof(Acc))},
                           {static_cast<char*>(input.data_ptr()), static_cast<char*>(acc.data_ptr())});
  StridedPlan<2> kept;
  StridedPlan<1> red;
  int64_t outputs = 1, len = 1;
  for (int64_t d = 0; d < plan.ndim(); ++d) {
    if (plan.strides[1][d] == 0) {
      red.sizes.push_back(plan.sizes[d]);
      red.strides[0].push_back(plan.strides[0][d]);
      len *= plan.sizes[d];
    } else {
      kept.sizes.push_back(plan.sizes[d]);
      for (int k = 0; k < 2; ++k) kept.strides[k].push_back(plan.strides[k][d]);
      outputs *= plan.sizes[d];
    }
  }
  bool contiguous = red.ndim() == 1 && red.strides[0][0] == int64_t(sizeof(T));
  Work w{make_offset_calc<2, int64_t>(kept), make_offset_calc<1, int64_t>(red), outputs, len, len, 1, contiguous};
  const char* in = plan.base[0];
  char* out = plan.base[1];
  int64_t threads = int64_t(sm_count()) * 4096;  // two waves of fully occupied multiprocessors
  // Short inner runs (under 16 elements) also go by columns: a warp per output would leave most lanes idle.
  bool inner = outputs == 1 || (plan.strides[1][0] == 0 && len >= 16);
  int group = group_for(len, outputs);  // slices only runs of 4096 or more, where this is 256, as launch_inner's
  if (inner) split(w, ceil_div(threads / group, outputs), group * 64, INT64_MAX);
  else split(w, ceil_div(threads / 256, ceil_div(outputs, 32)), 64, 65535);
  Tensor partial = w.slices > 1 ? empty({outputs * w.slices}, acc.options()) : Tensor();
  Acc* part = w.slices > 1 ? static_cast<Acc*>(partial.data_ptr()) : nullptr;
  if (inner) {
    launch_inner<T, T, Op>(w, in, out, part);
  } else {
    dim3 grid(unsigned(ceil_div(outputs, 32)), unsigned(w.slices));
    reduce_outer<T, T, Op><<<grid, dim3(32, 8), 0, current_stream()>>>(w, in, out, part);
    EMBER_CUDA_LAUNCH();
  }
  if (w.slices > 1) finish_slices<T, Op>(w, kept, partial, out);
}

// reduce_kernel for one op over one dtype family (family.h): folds `input` into `acc` for every dtype of it the op
// layer passes (all/any fold the input's truth, a bool tensor: src/ops/reduce.cpp). Each (op, family) is
// instantiated once, in its group's file, so the costly ops spread over several units.
template <ReduceOp Op, Family F>
void reduce_op(const Tensor& acc, const Tensor& input) {
  visit_dtype(input.dtype(), [&]<typename T>(T) {
    if constexpr (family_of_type<T> != F || functors::is_float8<T>) {
      throw Error("reduce: a dtype of another family, or float8 (the op layer reduces no float8 tensor)");
    } else if constexpr ((Op == ReduceOp::All || Op == ReduceOp::Any) && !std::is_same_v<T, bool>) {
      throw Error("reduce: all/any fold a bool tensor (the op layer converts the input first)");
    } else {
      run<T, Op>(acc, input);
    }
  });
}

}  // namespace ember::cuda_backend::reduction

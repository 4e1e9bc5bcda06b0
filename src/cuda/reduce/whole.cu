// kernels::reduce_all on CUDA: a dense tensor's sum, max or min in one pass (reduce.cuh's folds).
#include "../reduce_all.h"
#include "ember/layout.h"
#include "reduce.cuh"

namespace ember::cuda_backend {

namespace {

using reduction::acc_t;
using reduction::ceil_div;
using reduction::Fold;
using reduction::fold_span;

// Every element of a dense input folded into one value by one kernel: each block folds a grid-stride share
// (16-byte loads, four in flight) into its partial; the last block to finish (counted in `done`) folds the partials
// in block order and writes the result in the output's dtype. Deterministic for a given grid.
template <typename T, ReduceOp Op, typename O>
__global__ void __launch_bounds__(512) reduce_all(const T* in, int64_t n, acc_t<T>* partial, unsigned* done, O* out,
                                                  double divisor) {
  using Acc = acc_t<T>;
  Fold<T, Op> f;
  __shared__ Acc smem[32];
  __shared__ bool last;
  int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  Acc a = fold_span(in, n, int(tid), int(gridDim.x * blockDim.x), f, f.identity());
  a = block_fold(a, f.identity(), f, smem);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = a;
    __threadfence();  // the partial is visible before the count says so
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  Acc b = f.identity();
  for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) b = f(b, static_cast<volatile Acc*>(partial)[i]);
  b = block_fold(b, f.identity(), f, smem);
  if (threadIdx.x == 0) {
    if constexpr (std::is_floating_point_v<Acc>) *out = convert<O>(divisor == 1 ? b : b / divisor);
    else *out = convert<O>(b);
  }
}

template <typename T, ReduceOp Op, typename O>
void run_all(const Tensor& input, const Tensor& out, double divisor) {
  constexpr int kThreads = 512;
  int64_t n = input.numel();
  int64_t blocks = std::clamp<int64_t>(ceil_div(n, kThreads * 16), 1, 2 * int64_t(sm_count()));  // >= 16 per thread
  Tensor scratch = empty({blocks + 1}, input.options().with_dtype(kInt64));  // the partials, then the counter
  auto* partial = static_cast<acc_t<T>*>(scratch.data_ptr());
  auto* done = reinterpret_cast<unsigned*>(partial + blocks);
  cudaStream_t stream = current_stream();
  EMBER_CUDA_CHECK(cudaMemsetAsync(done, 0, sizeof(unsigned), stream));
  reduce_all<T, Op, O><<<unsigned(blocks), kThreads, 0, stream>>>(static_cast<const T*>(input.data_ptr()), n, partial,
                                                                  done, static_cast<O*>(out.data_ptr()), divisor);
  EMBER_CUDA_LAUNCH();
}

}  // namespace

// The whole of input (of type T) folded into out, in T or (an integer sum into int64) in int64.
template <typename T>
void run_whole(ReduceOp op, const Tensor& input, const Tensor& out, double divisor) {
  auto go = [&]<typename O>(O) {
    switch (op) {
      case ReduceOp::Sum: return run_all<T, ReduceOp::Sum, O>(input, out, divisor);
      case ReduceOp::Max: return run_all<T, ReduceOp::Max, O>(input, out, divisor);
      default: return run_all<T, ReduceOp::Min, O>(input, out, divisor);
    }
  };
  if constexpr (std::is_integral_v<T>) {
    if (out.dtype() != input.dtype()) return go(int64_t{});
  }
  go(T{});
}

Tensor reduce_all_kernel(ReduceOp op, const Tensor& input, ScalarType dtype, double divisor) {
  // A dense input in any dim order (a transposed matrix) is its numel elements from data_ptr: order does not matter.
  if (!is_non_overlapping_and_dense(input.sizes(), input.strides()) || input.numel() == 0 ||
      input.numel() > INT32_MAX / 2) {
    return {};
  }
  if (op != ReduceOp::Sum && op != ReduceOp::Max && op != ReduceOp::Min) return {};
  bool same = dtype == input.dtype();
  if (!same && !(op == ReduceOp::Sum && dtype == kInt64 && !is_floating_point(input.dtype()))) return {};
  DeviceGuard guard(device_index(input.device()));
  Tensor out = empty({}, input.options().with_dtype(dtype));
  visit_dtype(input.dtype(), [&]<typename T>(T) {
    if constexpr (functors::is_float8<T>) throw Error("reduce_all: the op layer reduces no float8 tensor");
    else run_whole<T>(op, input, out, divisor);
  });
  return out;
}

}  // namespace ember::cuda_backend

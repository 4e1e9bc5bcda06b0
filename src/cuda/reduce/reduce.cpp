// The CUDA reduction kernel (kernels::reduce) and the multiprocessor count.
#include <atomic>

#include "../kernels.h"
#include "../runtime.h"
#include "family.h"

namespace ember::cuda_backend {

// Defined in reduce.cuh; each op's kernels are built per dtype family in its group's file (sum.cu, prod.cu,
// extrema.cu, integral.cu).
namespace reduction {
template <ReduceOp Op, Family F>
void reduce_op(const Tensor& acc, const Tensor& input);
}  // namespace reduction

int sm_count() {
  static std::atomic<int> cache[64];
  int device = current_device();
  int n = device < 64 ? cache[device].load(std::memory_order_relaxed) : 0;
  if (n == 0) {
    EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
    if (device < 64) cache[device].store(n, std::memory_order_relaxed);
  }
  return n;
}

void reduce_kernel(ReduceOp op, const Tensor& acc, const Tensor& input) {
  if (input.numel() == 0) return;
  DeviceGuard guard(device_index(input.device()));
  using reduction::Family;
  auto run = [&]<ReduceOp Op>() {
    switch (reduction::family_of(input.dtype())) {
      case Family::Integral: return reduction::reduce_op<Op, Family::Integral>(acc, input);
      case Family::Floating: return reduction::reduce_op<Op, Family::Floating>(acc, input);
    }
  };
  switch (op) {
    case ReduceOp::Sum: return run.operator()<ReduceOp::Sum>();
    case ReduceOp::Prod: return run.operator()<ReduceOp::Prod>();
    case ReduceOp::Max: return run.operator()<ReduceOp::Max>();
    case ReduceOp::Min: return run.operator()<ReduceOp::Min>();
    // the op layer folds the truth of the input, a bool tensor
    case ReduceOp::All: return reduction::reduce_op<ReduceOp::All, Family::Integral>(acc, input);
    case ReduceOp::Any: return reduction::reduce_op<ReduceOp::Any, Family::Integral>(acc, input);
  }
}

}  // namespace ember::cuda_backend

// The CUDA reduction kernel (kernels::reduce) and the multiprocessor count.
#include <atomic>

#include "../kernels.h"
#include "../reduce_common.cuh"

namespace ember::cuda_backend {

// Defined in reduce.cuh; each op's kernels are built in its group's file (sum.cu, prod.cu, extrema.cu, logical.cu).
namespace reduction {
template <ReduceOp Op>
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
  switch (op) {
    case ReduceOp::Sum: return reduction::reduce_op<ReduceOp::Sum>(acc, input);
    case ReduceOp::Prod: return reduction::reduce_op<ReduceOp::Prod>(acc, input);
    case ReduceOp::Max: return reduction::reduce_op<ReduceOp::Max>(acc, input);
    case ReduceOp::Min: return reduction::reduce_op<ReduceOp::Min>(acc, input);
    case ReduceOp::All: return reduction::reduce_op<ReduceOp::All>(acc, input);
    case ReduceOp::Any: return reduction::reduce_op<ReduceOp::Any>(acc, input);
  }
}

}  // namespace ember::cuda_backend

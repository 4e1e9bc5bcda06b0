// SGD's multi-tensor launches.
#include "multi_tensor.cuh"

namespace ember::cuda_backend {
template void launch_update(const functors::SGDStep&, const OptimStep&, const std::vector<size_t>&);
}  // namespace ember::cuda_backend

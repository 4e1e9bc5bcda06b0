// The multi-tensor launches of Adagrad, RMSprop, Adamax, NAdam, RAdam, Adadelta, ASGD and Rprop.
#include "multi_tensor.cuh"

namespace ember::cuda_backend {
template void launch_update(const functors::AdagradStep&, const OptimStep&, const std::vector<size_t>&);
template void launch_update(const functors::RMSpropStep&, const OptimStep&, const std::vector<size_t>&);
template void launch_update(const functors::AdamaxStep&, const OptimStep&, const std::vector<size_t>&);
template void launch_update(const functors::NAdamStep&, const OptimStep&, const std::vector<size_t>&);
template void launch_update(const functors::RAdamStep&, const OptimStep&, const std::vector<size_t>&);
template void launch_update(const functors::AdadeltaStep&, const OptimStep&, const std::vector<size_t>&);
template void launch_update(const functors::ASGDStep&, const OptimStep&, const std::vector<size_t>&);
template void launch_update(const functors::RpropStep&, const OptimStep&, const std::vector<size_t>&);
}  // namespace ember::cuda_backend

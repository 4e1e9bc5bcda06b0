// The CUDA column of the kernel tables.
#include "kernels.h"

namespace ember::cuda_backend {

void register_kernels() {
  constexpr DeviceType cuda = DeviceType::CUDA;
  kernels::fill.set(cuda, fill_kernel);
}

}  // namespace ember::cuda_backend

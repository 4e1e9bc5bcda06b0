// Registers the CUDA column of kernels::adam_capturable (adam_capturable.cu).
#pragma once

namespace ember::cuda_backend {
void register_adam_capturable();
}  // namespace ember::cuda_backend

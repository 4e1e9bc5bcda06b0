// The CUDA column of the factorization tables (src/dispatch/linalg_kernels.h), through the host (linalg_host.cpp).
#pragma once

namespace ember::cuda_backend {
void register_linalg_host_kernels();
}  // namespace ember::cuda_backend

// Kernels of include/ember/unary/exp_log.def: exponentials, logarithms and roots.
#include "unary.cuh"

namespace ember::cuda_backend {

#define EMBER_UNARY_OP EMBER_CUDA_UNARY_KERNEL
#include "ember/unary/exp_log.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cuda_backend

// Kernels of include/ember/unary/activation.def: activations and special functions.
#include "unary.cuh"

namespace ember::cuda_backend {

#define EMBER_UNARY_OP EMBER_CUDA_UNARY_KERNEL
#include "ember/unary/activation.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cuda_backend

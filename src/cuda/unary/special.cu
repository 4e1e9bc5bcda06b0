// Kernels of include/ember/unary/special.def: lgamma, digamma, erfinv, Bessel i0.
#include "unary.cuh"

namespace ember::cuda_backend {

#define EMBER_UNARY_OP EMBER_CUDA_UNARY_KERNEL
#include "ember/unary/special.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cuda_backend

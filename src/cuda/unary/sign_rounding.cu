// Kernels of include/ember/unary/sign_rounding.def: sign, magnitude, rounding and bits.
#include "unary.cuh"

// sign tests `x < C(0)` for every integer type; on uint8 nvcc calls that pointless (#186).
#pragma nv_diag_suppress 186

namespace ember::cuda_backend {

#define EMBER_UNARY_OP EMBER_CUDA_UNARY_KERNEL
#include "ember/unary/sign_rounding.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cuda_backend

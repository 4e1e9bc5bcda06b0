// Kernels of include/ember/unary/sign_rounding.def: sign, magnitude, rounding and bits.
#include "unary_loop.h"

namespace ember::cpu {

#define EMBER_UNARY_OP EMBER_UNARY_KERNEL
#include "ember/unary/sign_rounding.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cpu

// Kernels of include/ember/unary/special.def: lgamma, digamma, erfinv, Bessel i0.
#include "unary_loop.h"

namespace ember::cpu {

#define EMBER_UNARY_OP EMBER_UNARY_KERNEL
#include "ember/unary/special.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cpu

// Kernels of include/ember/unary/trig.def: trigonometric and hyperbolic functions.
#include "unary_loop.h"

namespace ember::cpu {

#define EMBER_UNARY_OP EMBER_UNARY_KERNEL
#include "ember/unary/trig.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cpu

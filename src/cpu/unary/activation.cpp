// Kernels of include/ember/unary/activation.def: activations and special functions.
#include "unary_loop.h"

namespace ember::cpu {

#define EMBER_UNARY_OP EMBER_UNARY_KERNEL
#include "ember/unary/activation.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cpu

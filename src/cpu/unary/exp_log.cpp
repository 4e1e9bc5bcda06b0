// Kernels of include/ember/unary/exp_log.def: exponentials, logarithms and roots.
#include "unary_loop.h"

namespace ember::cpu {

#define EMBER_UNARY_OP EMBER_UNARY_KERNEL
#include "ember/unary/exp_log.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cpu

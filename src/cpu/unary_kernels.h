// Unary elementwise kernels, one per line of unary_ops.def.
#pragma once
#include "../dispatch/kernels.h"

namespace ember::cpu {

#define EMBER_UNARY_OP(name, kind, expr) void name##_kernel(const TensorIterator& it);
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cpu

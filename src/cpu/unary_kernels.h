// Unary elementwise kernels, one per line of unary_ops.def.
#pragma once
#include "../iter/tensor_iterator.h"

namespace ember::cpu {

// How an op treats dtypes (see unary_ops.def).
enum class UnaryKind { Float, Same, SameBool, BoolToLong, FloatOnly, Integral };

#define EMBER_UNARY_OP(name, kind, expr) void name##_kernel(const TensorIterator& it);
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cpu

// saves_input_<op>() for the unary ops of unary_ops.def: whether the op's derivative reads its input (else only its
// result, or nothing), so an in-place form can write straight into its input (src/ops/unary.cpp).
#pragma once

namespace ember::autograd {

#define EMBER_UNARY_OP(name, kind, expr) bool saves_input_##name();
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP

}  // namespace ember::autograd

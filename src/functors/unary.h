// Element helpers the expressions of unary_ops.def use, written once for every device.
#pragma once
#include <cmath>
#include <type_traits>

#include "ember/host_device.h"
#include "special.h"

namespace ember::functors {

template <typename C>
EMBER_HOST_DEVICE C abs_value(C x) {
  if constexpr (std::is_unsigned_v<C>) return x;
  else return C(std::abs(x));
}

// Rounding is the identity on integers.
template <typename C, typename F>
EMBER_HOST_DEVICE C rounded(C x, F f) {
  if constexpr (std::is_integral_v<C>) return x;
  else return f(x);
}

template <typename C>
EMBER_HOST_DEVICE C bitwise_not_value(C x) {
  if constexpr (std::is_same_v<C, bool>) return !x;
  else if constexpr (std::is_integral_v<C>) return C(~x);
  else return x;  // unreachable: the op rejects floating inputs
}

}  // namespace ember::functors

// The type element arithmetic runs in, shared by every backend's kernels.
#pragma once
#include <type_traits>

#include "ember/float_types.h"

namespace ember::functors {

// float for the 16- and 8-bit floats, else the element type itself.
template <typename T>
using Compute = std::conditional_t<std::is_integral_v<T> || std::is_floating_point_v<T>, T, float>;

template <typename T>
constexpr bool is_float8 = std::is_same_v<T, Float8_e4m3fn> || std::is_same_v<T, Float8_e5m2>;

}  // namespace ember::functors

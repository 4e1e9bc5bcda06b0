// The type element arithmetic runs in: float for the 16- and 8-bit floats, else the type itself.
#pragma once
#include <type_traits>

namespace ember::cpu {

template <typename T>
using Compute = std::conditional_t<std::is_integral_v<T> || std::is_floating_point_v<T>, T, float>;

}  // namespace ember::cpu

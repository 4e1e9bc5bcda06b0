// Element arithmetic types shared by the kernels.
#pragma once
#include <type_traits>

#include "ember/float_types.h"

namespace ember::cpu {

// The type element arithmetic runs in: float for the 16- and 8-bit floats, else the type itself.
template <typename T>
using Compute = std::conditional_t<std::is_integral_v<T> || std::is_floating_point_v<T>, T, float>;

template <typename T>
constexpr bool is_float8 = std::is_same_v<T, Float8_e4m3fn> || std::is_same_v<T, Float8_e5m2>;

// 32-byte vectors of float or double (GCC vector extensions).
template <typename C> struct Vec32;
template <> struct Vec32<float> { typedef float type __attribute__((vector_size(32))); };
template <> struct Vec32<double> { typedef double type __attribute__((vector_size(32))); };

}  // namespace ember::cpu

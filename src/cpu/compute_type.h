// Element arithmetic types of the CPU kernels.
#pragma once
#include "../functors/compute.h"

namespace ember::cpu {

using functors::Compute;
using functors::is_float8;

// NaN test for a compute type (false for integers).
template <typename C>
bool is_nan(C v) {
  if constexpr (std::is_floating_point_v<C>) return v != v;
  else return false;
}

// 32-byte vectors of float or double (GCC vector extensions).
template <typename C> struct Vec32;
template <> struct Vec32<float> { typedef float type __attribute__((vector_size(32))); };
template <> struct Vec32<double> { typedef double type __attribute__((vector_size(32))); };

}  // namespace ember::cpu

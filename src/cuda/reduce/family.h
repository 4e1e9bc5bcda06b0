// The dtype families the CUDA reductions are built for, each (op, family) once in its group's file: bool and the
// integers, the float8 types (their software conversions make prod's the costliest kernels), the other floats.
#pragma once
#include <type_traits>

#include "ember/dtype.h"

namespace ember::cuda_backend::reduction {

enum class Family { Integral, Float8, Floating };

template <typename T>
constexpr Family family_of_type = std::is_integral_v<T> ? Family::Integral
                                  : std::is_same_v<T, Float8_e4m3fn> || std::is_same_v<T, Float8_e5m2> ? Family::Float8
                                                                                                         : Family::Floating;

inline Family family_of(ScalarType t) {
  return visit_dtype(t, []<typename T>(T) { return family_of_type<T>; });
}

}  // namespace ember::cuda_backend::reduction

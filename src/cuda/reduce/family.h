// The dtype families the CUDA reductions are built for, each (op, family) once in its group's file: bool and the
// integers, the floats. No float8 tensor is reduced (torch has no kernel for them; the op layer raises).
#pragma once
#include <type_traits>

#include "ember/dtype.h"

namespace ember::cuda_backend::reduction {

enum class Family { Integral, Floating };

template <typename T>
constexpr Family family_of_type = std::is_integral_v<T> ? Family::Integral : Family::Floating;

inline Family family_of(ScalarType t) { return is_floating_point(t) ? Family::Floating : Family::Integral; }

}  // namespace ember::cuda_backend::reduction

// Which element types the unary kernels of each kind are built for, on every device.
#pragma once
#include <string_view>
#include <type_traits>

#include "kernels.h"

namespace ember {

// Whether a unary kernel of `kind` is built for element type T. The op layer converts integer inputs of Float ops
// to float and refuses bool for Same/BoolToLong ops (square takes it as int64), integers for FloatOnly ops,
// floating types for Integral ones and float8 for all but abs: kernels for those would never run (measured: the
// CUDA trig file compiled in 58 s CPU with them).
template <typename T>
constexpr bool unary_kernel_dtype(UnaryKind kind, std::string_view name) {
  if constexpr (std::is_same_v<T, Float8_e4m3fn> || std::is_same_v<T, Float8_e5m2>) return unary_takes_float8(name);
  constexpr bool floating = !std::is_integral_v<T>;
  switch (kind) {
    case UnaryKind::Float: case UnaryKind::FloatOnly: return floating;
    case UnaryKind::Integral: return !floating;
    case UnaryKind::SameBool: return true;
    case UnaryKind::Same: case UnaryKind::BoolToLong: return !std::is_same_v<T, bool>;
  }
  return false;
}

}  // namespace ember

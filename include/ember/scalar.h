// Scalar: a bool, integer or floating value, as passed to fill_, full or returned by item().
#pragma once
#include <cstdint>
#include <type_traits>

#include "ember/dtype.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Float };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { v_.i = v; }
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int) { v_.i = int64_t(v); }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Float) { v_.d = double(v); }

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating_point() const { return kind_ == Kind::Float; }

  // The value converted to T with the same rules as a tensor dtype conversion.
  template <typename T>
  T to() const {
    switch (kind_) {
      case Kind::Bool: return convert<T>(v_.i != 0);
      case Kind::Int: return convert<T>(v_.i);
      default: return convert<T>(v_.d);
    }
  }
  double to_double() const { return kind_ == Kind::Float ? v_.d : double(v_.i); }
  int64_t to_int() const { return kind_ == Kind::Float ? int64_t(v_.d) : v_.i; }
  bool to_bool() const { return to<bool>(); }

  // The dtype torch infers for a tensor built from this value.
  ScalarType natural_dtype() const {
    return kind_ == Kind::Bool ? kBool : kind_ == Kind::Int ? kInt64 : default_dtype();
  }

 private:
  Kind kind_;
  union { int64_t i; double d; } v_;
};

}  // namespace ember

// Scalar: a bool, integer or floating value, as passed to fill_, full or returned by item().
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ember/dtype.h"
#include "ember/errors.h"

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

  // The value converted to T with the same rules as a tensor dtype conversion; a value outside T's
  // range raises, as torch's checked_convert (to bool never does).
  template <typename T>
  T to() const {
    switch (kind_) {
      case Kind::Bool: return convert<T>(v_.i != 0);
      case Kind::Int: check_fits<T>(overflows<T>(v_.i)); return convert<T>(v_.i);
      default: check_fits<T>(overflows<T>(v_.d)); return convert<T>(v_.d);
    }
  }
  // Raises as to<T>() does when the value does not fit `dtype`.
  void check_fits(ScalarType dtype) const {
    visit_dtype(dtype, [&]<typename T>(T) { (void)to<T>(); });
  }
  double to_double() const { return kind_ == Kind::Float ? v_.d : double(v_.i); }
  int64_t to_int() const { return kind_ == Kind::Float ? int64_t(v_.d) : v_.i; }
  bool to_bool() const { return to<bool>(); }

  // The dtype torch infers for a tensor built from this value.
  ScalarType natural_dtype() const {
    return kind_ == Kind::Bool ? kBool : kind_ == Kind::Int ? kInt64 : default_dtype();
  }

 private:
  // c10::overflows: negative integers may wrap into unsigned types (to -max); infinities and NaN
  // fit the float types that have them; NaN fits no integer type.
  template <typename T>
  static bool overflows(int64_t v) {
    if constexpr (std::is_same_v<T, bool>) {
      return false;
    } else if constexpr (std::is_unsigned_v<T>) {
      return v > int64_t(std::numeric_limits<T>::max()) || (v < 0 && -uint64_t(v) > std::numeric_limits<T>::max());
    } else if constexpr (std::is_integral_v<T>) {
      return v < int64_t(std::numeric_limits<T>::lowest()) || v > int64_t(std::numeric_limits<T>::max());
    } else {
      return overflows<T>(double(v));
    }
  }
  template <typename T>
  static bool overflows(double v) {
    if constexpr (std::is_same_v<T, bool>) {
      return false;
    } else if constexpr (std::is_integral_v<T>) {
      return std::isnan(v) || v < double(std::numeric_limits<T>::lowest()) || v > double(std::numeric_limits<T>::max());
    } else {
      if (std::isnan(v) || (std::isinf(v) && !std::is_same_v<T, Float8_e4m3fn>)) return false;
      return std::abs(v) > max_finite<T>();
    }
  }
  template <typename T>
  static constexpr double max_finite() {
    if constexpr (std::is_same_v<T, Half>) return 65504.0;
    else if constexpr (std::is_same_v<T, BFloat16>) return 0x1.fep127;
    else if constexpr (std::is_same_v<T, Float8_e4m3fn>) return 448.0;
    else if constexpr (std::is_same_v<T, Float8_e5m2>) return 57344.0;
    else return double(std::numeric_limits<T>::max());
  }
  // The C++ type name torch's message uses.
  template <typename T>
  static const char* type_name() {
    if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
    else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
    else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
    else if constexpr (std::is_same_v<T, int32_t>) return "int";
    else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
    else if constexpr (std::is_same_v<T, Half>) return "c10::Half";
    else if constexpr (std::is_same_v<T, BFloat16>) return "c10::BFloat16";
    else if constexpr (std::is_same_v<T, Float8_e4m3fn>) return "c10::Float8_e4m3fn";
    else if constexpr (std::is_same_v<T, Float8_e5m2>) return "c10::Float8_e5m2";
    else if constexpr (std::is_same_v<T, float>) return "float";
    else return "double";
  }
  template <typename T>
  static void check_fits(bool overflow) {
    if (overflow) throw Error(std::string("value cannot be converted to type ") + type_name<T>() + " without overflow");
  }

  Kind kind_;
  union { int64_t i; double d; } v_;
};

}  // namespace ember

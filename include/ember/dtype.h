// Scalar types and dtype dispatch.
#pragma once
#include <cstdint>
#include <string_view>

#include "ember/errors.h"
#include "ember/float_types.h"

namespace ember {

enum class ScalarType : int8_t {
  Bool, UInt8, Int8, Int16, Int32, Int64,
  Float16, BFloat16, Float32, Float64, Float8_e4m3fn, Float8_e5m2,
  QInt8, QUInt8, QInt32,  // quantized: integers with a scale and zero point (ember/quantized.h)
};
inline constexpr int kNumScalarTypes = 15;

inline constexpr ScalarType kBool = ScalarType::Bool;
inline constexpr ScalarType kUInt8 = ScalarType::UInt8;
inline constexpr ScalarType kInt8 = ScalarType::Int8;
inline constexpr ScalarType kInt16 = ScalarType::Int16;
inline constexpr ScalarType kInt32 = ScalarType::Int32;
inline constexpr ScalarType kInt64 = ScalarType::Int64;
inline constexpr ScalarType kFloat16 = ScalarType::Float16;
inline constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
inline constexpr ScalarType kFloat32 = ScalarType::Float32;
inline constexpr ScalarType kFloat64 = ScalarType::Float64;
inline constexpr ScalarType kFloat8_e4m3fn = ScalarType::Float8_e4m3fn;
inline constexpr ScalarType kFloat8_e5m2 = ScalarType::Float8_e5m2;
inline constexpr ScalarType kQInt8 = ScalarType::QInt8;
inline constexpr ScalarType kQUInt8 = ScalarType::QUInt8;
inline constexpr ScalarType kQInt32 = ScalarType::QInt32;
// libtorch's names for the same dtypes.
inline constexpr ScalarType kByte = kUInt8;
inline constexpr ScalarType kChar = kInt8;
inline constexpr ScalarType kShort = kInt16;
inline constexpr ScalarType kInt = kInt32;
inline constexpr ScalarType kLong = kInt64;
inline constexpr ScalarType kHalf = kFloat16;
inline constexpr ScalarType kFloat = kFloat32;
inline constexpr ScalarType kDouble = kFloat64;

// Facts about one dtype; `name` is torch's spelling ("float32"), `legacy_name` the tensor type ("Float"),
// `cpp_name` the C++ type torch's kernel errors name ("float", "long int").
struct DTypeInfo {
  std::string_view name;
  std::string_view legacy_name;
  std::string_view cpp_name;
  int8_t itemsize;
  bool is_floating_point;
  bool is_signed;
};

const DTypeInfo& dtype_info(ScalarType t);
// The tensor type's name ("Float"), as torch's dtype errors spell it.
inline std::string_view legacy_name(ScalarType t) { return dtype_info(t).legacy_name; }
inline size_t element_size(ScalarType t) { return size_t(dtype_info(t).itemsize); }
inline bool is_floating_point(ScalarType t) { return dtype_info(t).is_floating_point; }
inline bool is_integral(ScalarType t, bool include_bool) {
  return !is_floating_point(t) && (include_bool || t != kBool);
}
inline std::string_view dtype_name(ScalarType t) { return dtype_info(t).name; }
inline bool is_float8(ScalarType t) { return t == kFloat8_e4m3fn || t == kFloat8_e5m2; }
inline bool is_quantized(ScalarType t) { return t == kQInt8 || t == kQUInt8 || t == kQInt32; }
// The integer type a quantized dtype stores (qint8 -> int8); other dtypes map to themselves.
inline ScalarType storage_type(ScalarType t) {
  return t == kQInt8 ? kInt8 : t == kQUInt8 ? kUInt8 : t == kQInt32 ? kInt32 : t;
}
// NotImplementedError for an element kernel asked to run on a quantized dtype (torch has none either).
[[noreturn]] void throw_quantized_unsupported(ScalarType t);

// The process-wide default float dtype (torch.get_default_dtype()).
ScalarType default_dtype();
void set_default_dtype(ScalarType t);

template <ScalarType T> struct CppTypeOf;
template <> struct CppTypeOf<kBool> { using type = bool; };
template <> struct CppTypeOf<kUInt8> { using type = uint8_t; };
template <> struct CppTypeOf<kInt8> { using type = int8_t; };
template <> struct CppTypeOf<kInt16> { using type = int16_t; };
template <> struct CppTypeOf<kInt32> { using type = int32_t; };
template <> struct CppTypeOf<kInt64> { using type = int64_t; };
template <> struct CppTypeOf<kFloat16> { using type = Half; };
template <> struct CppTypeOf<kBFloat16> { using type = BFloat16; };
template <> struct CppTypeOf<kFloat32> { using type = float; };
template <> struct CppTypeOf<kFloat64> { using type = double; };
template <> struct CppTypeOf<kFloat8_e4m3fn> { using type = Float8_e4m3fn; };
template <> struct CppTypeOf<kFloat8_e5m2> { using type = Float8_e5m2; };

template <typename T> inline constexpr ScalarType scalar_type_of = ScalarType::Bool;
template <> inline constexpr ScalarType scalar_type_of<uint8_t> = kUInt8;
template <> inline constexpr ScalarType scalar_type_of<int8_t> = kInt8;
template <> inline constexpr ScalarType scalar_type_of<int16_t> = kInt16;
template <> inline constexpr ScalarType scalar_type_of<int32_t> = kInt32;
template <> inline constexpr ScalarType scalar_type_of<int64_t> = kInt64;
template <> inline constexpr ScalarType scalar_type_of<Half> = kFloat16;
template <> inline constexpr ScalarType scalar_type_of<BFloat16> = kBFloat16;
template <> inline constexpr ScalarType scalar_type_of<float> = kFloat32;
template <> inline constexpr ScalarType scalar_type_of<double> = kFloat64;
template <> inline constexpr ScalarType scalar_type_of<Float8_e4m3fn> = kFloat8_e4m3fn;
template <> inline constexpr ScalarType scalar_type_of<Float8_e5m2> = kFloat8_e5m2;

// Calls fn(T{}) with T the C++ type of `t`: dispatch with a templated lambda,
//   visit_dtype(t, [&]<typename T>(T) { ... });
template <typename Fn>
decltype(auto) visit_dtype(ScalarType t, Fn&& fn) {
  switch (t) {
    case kBool: return fn(bool{});
    case kUInt8: return fn(uint8_t{});
    case kInt8: return fn(int8_t{});
    case kInt16: return fn(int16_t{});
    case kInt32: return fn(int32_t{});
    case kInt64: return fn(int64_t{});
    case kFloat16: return fn(Half{});
    case kBFloat16: return fn(BFloat16{});
    case kFloat32: return fn(float{});
    case kFloat64: return fn(double{});
    case kFloat8_e4m3fn: return fn(Float8_e4m3fn{});
    case kFloat8_e5m2: return fn(Float8_e5m2{});
    case kQInt8: case kQUInt8: case kQInt32: throw_quantized_unsupported(t);
  }
  throw Error("unknown dtype");
}

// Value conversion between element types with torch's CPU semantics: floats to narrow
// integers truncate through int32 (out of range gives INT32_MIN's low bits); NaN to bool is true.
template <typename To, typename From>
EMBER_HOST_DEVICE inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (std::is_integral_v<From>) return v != 0;
    else return static_cast<float>(v) != 0.0f || std::isnan(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To>) {
    if constexpr (std::is_integral_v<From>) {
      return static_cast<To>(v);
    } else {
      using Wide = std::conditional_t<std::is_same_v<From, double>, double, float>;
      Wide w = static_cast<Wide>(v);
      // double -> uint8 truncates through int64 in torch's CPU kernels; the rest through int32.
      if constexpr (sizeof(To) == 8 || (std::is_same_v<To, uint8_t> && std::is_same_v<From, double>)) {
        if (!(w >= -0x1p63 && w < 0x1p63)) return static_cast<To>(INT64_MIN);
        return static_cast<To>(static_cast<int64_t>(w));
      } else {
        if (!(w >= -0x1p31 && w < 0x1p31)) return static_cast<To>(INT32_MIN);
        return static_cast<To>(static_cast<int32_t>(w));
      }
    }
  } else if constexpr (std::is_same_v<To, double>) {
    if constexpr (std::is_same_v<From, bool> || std::is_integral_v<From>) return static_cast<double>(v);
    else return static_cast<double>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, float>) {
    return static_cast<float>(v);
  } else {
    // Half, BFloat16 and float8 are built from float; doubles and int64 round through float.
    if constexpr (std::is_same_v<From, bool>) return To(v ? 1.0f : 0.0f);
    else return To(static_cast<float>(v));
  }
}

}  // namespace ember

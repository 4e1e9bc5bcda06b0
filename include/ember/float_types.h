// Reduced-precision floating types: float16, bfloat16, float8_e4m3fn, float8_e5m2.
// Conversions from float round to nearest even, as torch does; e4m3fn saturates to +-448.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

#include "ember/host_device.h"

namespace ember {

namespace detail {

EMBER_HOST_DEVICE inline uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }
EMBER_HOST_DEVICE inline float f32_from_bits(uint32_t b) { return std::bit_cast<float>(b); }

// IEEE binary16 <-> binary32 (round to nearest even, overflow to inf, NaN kept quiet).
EMBER_HOST_DEVICE inline uint16_t f32_to_f16_bits(float f) {
  uint32_t x = f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return uint16_t(sign | 0x7e00u);       // NaN
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);      // >= 65520 rounds to inf
  if (abs < 0x38800000u) {                                     // result is subnormal or zero
    float r = std::bit_cast<float>(abs) + 0.5f;                // aligns the mantissa, rounds RNE
    return uint16_t(sign | (f32_bits(r) - 0x3f000000u));
  }
  uint32_t mant_odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + mant_odd;                               // rebias exponent and round
  return uint16_t(sign | (abs >> 13));
}

EMBER_HOST_DEVICE inline float f16_bits_to_f32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return f32_from_bits(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    float v = float(mant) * 0x1p-24f;
    return sign ? -v : v;
  }
  return f32_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
}

EMBER_HOST_DEVICE inline uint16_t f32_to_bf16_bits(float f) {
  uint32_t x = f32_bits(f);
  if (std::isnan(f)) return uint16_t((x >> 16) | 0x40u);
  uint32_t rounding_bias = 0x7fffu + ((x >> 16) & 1u);
  return uint16_t((x + rounding_bias) >> 16);
}

EMBER_HOST_DEVICE inline float bf16_bits_to_f32(uint16_t b) { return f32_from_bits(uint32_t(b) << 16); }

// Generic small-float encoder: EXP exponent bits, MAN mantissa bits, bias 2^(EXP-1)-1.
// e4m3fn has no infinities (0x7f is NaN, max 448, saturating); e5m2 is IEEE-like.
template <int EXP, int MAN, bool FN>
EMBER_HOST_DEVICE inline uint8_t f32_to_f8_bits(float f) {
  constexpr int bias = (1 << (EXP - 1)) - 1;
  uint8_t sign = std::signbit(f) ? 0x80 : 0;
  float a = std::fabs(f);
  if (std::isnan(f)) return uint8_t(sign | 0x7f);
  constexpr int max_exp = FN ? (1 << EXP) - 1 - bias : (1 << EXP) - 2 - bias;
  // The largest finite value: 2^max_exp * (2 - 2^-MAN), or (2 - 2^(1-MAN)) for e4m3fn, whose top code is NaN.
  constexpr float max_val = float(1 << max_exp) * (2.0f - float(FN ? 2 : 1) / float(1 << MAN));
  if (FN) {
    if (a >= max_val) return uint8_t(sign | 0x7e);  // saturate (inf included), as torch does
  } else if (std::isinf(f)) {
    return uint8_t(sign | 0x7c);
  }
  constexpr int min_exp = 1 - bias;
  int e;
  std::frexp(a, &e);  // a = m * 2^e with m in [0.5, 1)
  int exp = e - 1;
  if (exp < min_exp) exp = min_exp;
  // Quantum of representable values at this exponent, then round to nearest even.
  float quantum = std::ldexp(1.0f, exp - MAN);
  float q = std::nearbyint(a / quantum);  // default rounding mode: nearest even
  float r = q * quantum;
  if (!FN && r > max_val) return uint8_t(sign | 0x7c);
  int rexp;
  std::frexp(r, &rexp);
  rexp -= 1;
  if (r == 0.0f) return sign;
  if (rexp < min_exp) {  // subnormal
    return uint8_t(sign | uint8_t(r / std::ldexp(1.0f, min_exp - MAN)));
  }
  uint32_t mant = uint32_t(r / std::ldexp(1.0f, rexp - MAN)) - (1u << MAN);
  return uint8_t(sign | ((rexp + bias) << MAN) | mant);
}

template <int EXP, int MAN, bool FN>
EMBER_HOST_DEVICE inline float f8_bits_to_f32(uint8_t b) {
  constexpr int bias = (1 << (EXP - 1)) - 1;
  float sign = (b & 0x80) ? -1.0f : 1.0f;
  int exp = (b >> MAN) & ((1 << EXP) - 1);
  int mant = b & ((1 << MAN) - 1);
  if (FN) {
    if ((b & 0x7f) == 0x7f) return NAN;
  } else if (exp == (1 << EXP) - 1) {
    return mant ? NAN : sign * INFINITY;
  }
  if (exp == 0) return sign * std::ldexp(float(mant), 1 - bias - MAN);
  return sign * std::ldexp(float(mant + (1 << MAN)), exp - bias - MAN);
}

}  // namespace detail

// A float type stored as raw bits; conversion to and from float defines it, and arithmetic
// goes through float.
template <typename Bits, Bits (*Encode)(float), float (*Decode)(Bits)>
struct SmallFloat {
  Bits x = 0;
  SmallFloat() = default;
  EMBER_HOST_DEVICE SmallFloat(float f) : x(Encode(f)) {}
  EMBER_HOST_DEVICE static SmallFloat from_bits(Bits b) {
    SmallFloat h;
    h.x = b;
    return h;
  }
  EMBER_HOST_DEVICE operator float() const { return Decode(x); }
};

using Half = SmallFloat<uint16_t, detail::f32_to_f16_bits, detail::f16_bits_to_f32>;
using BFloat16 = SmallFloat<uint16_t, detail::f32_to_bf16_bits, detail::bf16_bits_to_f32>;
using Float8_e4m3fn = SmallFloat<uint8_t, detail::f32_to_f8_bits<4, 3, true>, detail::f8_bits_to_f32<4, 3, true>>;
using Float8_e5m2 = SmallFloat<uint8_t, detail::f32_to_f8_bits<5, 2, false>, detail::f8_bits_to_f32<5, 2, false>>;

}  // namespace ember

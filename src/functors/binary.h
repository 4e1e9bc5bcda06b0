// Element functions of the binary ops (binary_ops.def), written once for every device. C is the type the
// arithmetic runs in (Compute<T>): an integer type, bool, float or double.
#pragma once
#include <cmath>
#include <type_traits>

#include "ember/host_device.h"

namespace ember::functors {

// Integer power by squaring, in unsigned arithmetic (wraps like torch); negative exponents give
// 0 except for bases 1 and -1.
template <typename C>
EMBER_HOST_DEVICE C power(C base, C exp) {
  if constexpr (std::is_same_v<C, bool>) {
    return exp ? base : true;
  } else if constexpr (std::is_integral_v<C>) {
    if constexpr (std::is_signed_v<C>) {
      if (exp < 0) return base == 1 ? C(1) : base == -1 ? C((exp & 1) ? -1 : 1) : C(0);
    }
    using U = std::make_unsigned_t<C>;
    U result = 1, b = U(base);
    for (auto e = U(exp); e; e >>= 1) {
      if (e & 1) result = U(result * b);
      b = U(b * b);
    }
    return C(result);
  } else {
    return std::pow(base, exp);
  }
}

// a / b for integers, rounded toward 0; b == -1 negates with wrapping (INT_MIN / -1 is INT_MIN,
// where the hardware would trap).
template <typename C>
EMBER_HOST_DEVICE C int_div(C a, C b) {
  if constexpr (std::is_signed_v<C>) {
    if (b == C(-1)) return C(std::make_unsigned_t<C>(0) - std::make_unsigned_t<C>(a));
  }
  return C(a / b);
}

// C's fmod: the result takes the dividend's sign. For integers, b == -1 gives 0 without the hardware trap
// INT_MIN % -1 raises.
template <typename C>
EMBER_HOST_DEVICE C truncated_mod(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    return a;
  } else if constexpr (std::is_integral_v<C>) {
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return C(0);
    }
    return C(a % b);
  } else {
    return std::fmod(a, b);
  }
}

// Python's %: the result takes the divisor's sign.
template <typename C>
EMBER_HOST_DEVICE C remainder(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    return a;
  } else {
    C r = truncated_mod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? C(r + b) : r;
  }
}

// Division rounded toward negative infinity (Python's //, torch's div_floor).
template <typename C>
EMBER_HOST_DEVICE C floor_divide(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    return a;
  } else if constexpr (std::is_integral_v<C>) {
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return int_div(a, b);
    }
    C q = C(a / b);
    return (a % b != 0 && ((a < 0) != (b < 0))) ? C(q - 1) : q;
  } else {
    if (b == 0) return a / b;
    C mod = std::fmod(a, b);
    C div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    if (div == 0) return std::copysign(C(0), a / b);
    C floored = std::floor(div);
    return div - floored > C(0.5) ? floored + 1 : floored;
  }
}

// Division rounded toward zero (torch's div_trunc); the quotient is rounded to the element type T first
// (torch's Half and BFloat16 division returns T).
template <typename T, typename C>
EMBER_HOST_DEVICE C trunc_divide(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) return a;
  else if constexpr (std::is_integral_v<C>) return int_div(a, b);
  else return std::trunc(C(T(a / b)));
}

// maximum/minimum: NaN propagates (`picked` unless a or b is NaN). fmax/fmin (num_*): NaN is ignored.
template <typename C>
EMBER_HOST_DEVICE C nan_or(C a, C b, C picked) {
  if constexpr (!std::is_integral_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return picked;
}
template <typename C>
EMBER_HOST_DEVICE C nan_max(C a, C b) { return nan_or(a, b, a > b ? a : b); }
template <typename C>
EMBER_HOST_DEVICE C nan_min(C a, C b) { return nan_or(a, b, a < b ? a : b); }
template <typename C>
EMBER_HOST_DEVICE C num_max(C a, C b) {
  if constexpr (std::is_integral_v<C>) return a > b ? a : b;
  else return std::fmax(a, b);
}
template <typename C>
EMBER_HOST_DEVICE C num_min(C a, C b) {
  if constexpr (std::is_integral_v<C>) return a < b ? a : b;
  else return std::fmin(a, b);
}

// Bitwise ops on integers and bool (the op layer rejects floating inputs).
template <typename C>
EMBER_HOST_DEVICE C bit_and(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) return a && b;
  else return C(a & b);
}
template <typename C>
EMBER_HOST_DEVICE C bit_or(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) return a || b;
  else return C(a | b);
}
template <typename C>
EMBER_HOST_DEVICE C bit_xor(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) return a != b;
  else return C(a ^ b);
}
// Shifts past the width give 0 (or -1 for negative right shifts), as torch.
template <typename C>
EMBER_HOST_DEVICE C shift_left(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) return C(int(a) << int(b));
  else return b < 0 || b >= C(sizeof(C) * 8) ? C(0) : C(std::make_unsigned_t<C>(a) << b);
}
template <typename C>
EMBER_HOST_DEVICE C shift_right(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) return C(int(a) >> int(b));
  else return b < 0 || b >= C(sizeof(C) * 8) ? C(a < 0 ? -1 : 0) : C(a >> b);
}

// log(e^a + e^b) and log2(2^a + 2^b), computed from the larger one; equal infinities give themselves.
template <typename C>
EMBER_HOST_DEVICE C log_add_exp(C a, C b) {
  if (a == b && std::isinf(a)) return a;
  C m = a > b ? a : b;
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}
template <typename C>
EMBER_HOST_DEVICE C log_add_exp2(C a, C b) {
  if (a == b && std::isinf(a)) return a;
  C m = a > b ? a : b;
  return m + std::log1p(std::exp2(-std::fabs(a - b))) * C(1.4426950408889634);
}

// Greatest common divisor of |a| and |b| (0 for two zeros); least common multiple |a / gcd * b| (0 with a zero).
// bool never reaches them (the op layer refuses it).
template <typename C>
EMBER_HOST_DEVICE C gcd_value(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    return a || b;
  } else {
    if constexpr (std::is_signed_v<C>) {
      a = a < 0 ? C(-a) : a;
      b = b < 0 ? C(-b) : b;
    }
    while (a != 0) {
      C c = a;
      a = C(b % a);
      b = c;
    }
    return b;
  }
}
template <typename C>
EMBER_HOST_DEVICE C lcm_value(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    return a && b;
  } else {
    C g = gcd_value(a, b);
    if (g == 0) return C(0);
    C l = C(a / g * b);
    if constexpr (std::is_signed_v<C>) return l < 0 ? C(-l) : l;
    else return l;
  }
}

}  // namespace ember::functors

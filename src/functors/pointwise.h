// Element functions of the pointwise ops torch computes in one pass (lerp, addcmul, addcdiv, clamp by numbers,
// nan_to_num), for every device.
// C is the compute type (Compute<T>); multiply-adds are fused as torch's vectorised CPU kernels fuse them, so a
// contiguous float result is bitwise torch's.
#pragma once
#include <cmath>
#include <type_traits>

#include "ember/host_device.h"

namespace ember::functors {

// a * b + c, rounded once for floats.
template <typename C>
EMBER_ALWAYS_INLINE EMBER_HOST_DEVICE C mul_add(C a, C b, C c) {
  if constexpr (std::is_floating_point_v<C>) return std::fma(a, b, c);
  else return C(a * b + c);
}

// torch's lerp: exact at both ends, start + w (end - start) for |w| < 0.5, else end - (end - start)(1 - w).
template <typename C>
EMBER_ALWAYS_INLINE EMBER_HOST_DEVICE C lerp_exact(C start, C end, C w) {
  C diff = end - start;
  return std::abs(w) < C(0.5) ? mul_add(w, diff, start) : mul_add(w - C(1), diff, end);
}

struct Lerp {  // lerp(start, end, weight tensor)
  static constexpr int arity = 3;
  template <class C>
  EMBER_HOST_DEVICE C operator()(C start, C end, C w) const { return lerp_exact(start, end, w); }
};
template <typename C>
struct LerpScalar {  // lerp(start, end, number weight)
  static constexpr int arity = 2;
  C w;
  EMBER_HOST_DEVICE C operator()(C start, C end) const { return lerp_exact(start, end, w); }
};
template <typename C>
struct Addcmul {  // self + value * t1 * t2
  static constexpr int arity = 3;
  C value;
  EMBER_HOST_DEVICE C operator()(C self, C t1, C t2) const { return mul_add(C(value * t1), t2, self); }
};
template <typename C>
struct Addcdiv {  // self + value * t1 / t2
  static constexpr int arity = 3;
  C value;
  EMBER_HOST_DEVICE C operator()(C self, C t1, C t2) const { return C(self + C(value * t1) / t2); }
};

template <typename C>
struct Clamp {  // clamp(x, lo, hi) by numbers (a missing bound is an infinity); NaNs of x and the bounds propagate
  static constexpr int arity = 1;
  C lo, hi;
  EMBER_HOST_DEVICE C operator()(C x) const {  // selects, which vectorise (torch's: a bound wins a tie of zeros)
    C m = x > lo || x != x ? x : lo;
    return m < hi || m != m ? m : hi;
  }
};
template <typename C>
struct NanToNum {  // NaN, +inf and -inf replaced
  static constexpr int arity = 1;
  C nan, posinf, neginf;
  EMBER_HOST_DEVICE C operator()(C x) const {
    return x != x ? nan : x == C(INFINITY) ? posinf : x == C(-INFINITY) ? neginf : x;
  }
};

}  // namespace ember::functors

#include "binary_kernels.h"
#include "compute_type.h"

#include <cmath>

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace ember::cpu {

namespace {

// Large float outputs are written with streaming stores: they bypass the cache, so the
// destination is not read first (a third less memory traffic for a + b at 16M elements).
constexpr int64_t kStreamBytes = 1 << 20;

template <typename Out, typename T, typename F>
bool stream_contiguous(Out* o, const T* a, const T* b, int64_t n, F& f) {
#ifdef __AVX2__
  if constexpr (std::is_same_v<Out, float>) {
    if (n * int64_t(sizeof(float)) < kStreamBytes) return false;
    int64_t i = 0;
    for (; i < n && (reinterpret_cast<uintptr_t>(o + i) & 31); ++i) o[i] = f(a[i], b[i]);
    for (; i + 8 <= n; i += 8) {
      alignas(32) float block[8];
      for (int k = 0; k < 8; ++k) block[k] = f(a[i + k], b[i + k]);
      _mm256_stream_ps(o + i, _mm256_load_ps(block));
    }
    for (; i < n; ++i) o[i] = f(a[i], b[i]);
    _mm_sfence();
    return true;
  }
#endif
  return false;
}

// out[i] = f(a[i], b[i]) over a plan of (out, a, b); the contiguous and scalar-operand cases are
// separate loops the compiler vectorises.
template <typename Out, typename T, typename F>
void binary_loop(const TensorIterator& it, F f) {
  auto plan = it.plan<3>();
  parallel_rows(plan, kParallelGrain, [&](const std::array<char*, 3>& p, int64_t n, const std::array<int64_t, 3>& s) {
    auto* o = reinterpret_cast<Out*>(p[0]);
    auto* a = reinterpret_cast<const T*>(p[1]);
    auto* b = reinterpret_cast<const T*>(p[2]);
    constexpr int64_t so = sizeof(Out), st = sizeof(T);
    if (s[0] == so && s[1] == st && s[2] == st) {
      if (stream_contiguous(o, a, b, n, f)) return;
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
    } else if (s[0] == so && s[1] == st && s[2] == 0) {
      T bv = *b;
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], bv);
    } else if (s[0] == so && s[1] == 0 && s[2] == st) {
      T av = *a;
      for (int64_t i = 0; i < n; ++i) o[i] = f(av, b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<Out*>(p[0] + i * s[0]) =
            f(*reinterpret_cast<const T*>(p[1] + i * s[1]), *reinterpret_cast<const T*>(p[2] + i * s[2]));
      }
    }
  });
}

// Integer power by squaring, in unsigned arithmetic (wraps like torch); negative exponents give
// 0 except for bases 1 and -1.
template <typename C>
C int_pow(C base, C exp) {
  if constexpr (std::is_same_v<C, bool>) {
    return exp ? base : true;
  } else {
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
  }
}

// a % b for integers; b == -1 gives 0 without the hardware trap INT_MIN % -1 raises.
template <typename C>
C int_fmod(C a, C b) {
  if constexpr (std::is_signed_v<C>) {
    if (b == C(-1)) return C(0);
  }
  return C(a % b);
}

// Python-style modulo: the result takes the divisor's sign.
template <typename C>
C remainder(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    return a;
  } else if constexpr (std::is_integral_v<C>) {
    C r = int_fmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? C(r + b) : r;
  } else {
    C r = std::fmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
  }
}

// a / b for integers, rounded toward 0; b == -1 negates with wrapping (INT_MIN / -1 is INT_MIN,
// where the hardware would trap).
template <typename C>
C int_div(C a, C b) {
  if constexpr (std::is_signed_v<C>) {
    if (b == C(-1)) return C(std::make_unsigned_t<C>(0) - std::make_unsigned_t<C>(a));
  }
  return C(a / b);
}

// Division rounded toward zero (torch's div_trunc); the quotient is rounded to T first (torch's Half and
// BFloat16 division returns T).
template <typename T, typename C>
C trunc_divide(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) return a;
  else if constexpr (std::is_integral_v<C>) return int_div(a, b);
  else return std::trunc(C(T(a / b)));
}

// Division rounded toward negative infinity (torch's div_floor).
template <typename C>
C floor_divide(C a, C b) {
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

template <typename C>
C nan_max(C a, C b, bool is_max) {  // maximum/minimum: NaN propagates
  if constexpr (!std::is_integral_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

template <typename T>
void arithmetic(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  using C = Compute<T>;
  auto run = [&](auto fn) {
    if constexpr (std::is_same_v<C, float> && !std::is_same_v<T, float>) {
      if (wide_b) {
        float w = *wide_b;
        binary_loop<T, T>(it, [fn, w](T a, T) { return convert<T>(fn(C(a), w)); });
        return;
      }
    }
    binary_loop<T, T>(it, [fn](T a, T b) { return convert<T>(fn(C(a), C(b))); });
  };
  C al = C(alpha.to<T>());  // rounded to the element type first, as torch
  switch (op) {
    case BinaryOp::Add:
      if (alpha.to_double() == 1.0) run([](C a, C b) { return a + b; });
      else run([al](C a, C b) { return a + al * b; });
      return;
    case BinaryOp::Sub:
      if (alpha.to_double() == 1.0) run([](C a, C b) { return a - b; });
      else run([al](C a, C b) { return a - al * b; });
      return;
    case BinaryOp::Mul: run([](C a, C b) { return a * b; }); return;
    case BinaryOp::Div: run([](C a, C b) { return a / b; }); return;
    case BinaryOp::Pow:
      if constexpr (std::is_integral_v<C>) run([](C a, C b) { return int_pow(a, b); });
      else run([](C a, C b) { return std::pow(a, b); });
      return;
    case BinaryOp::Remainder: run([](C a, C b) { return remainder(a, b); }); return;
    case BinaryOp::FloorDivide: case BinaryOp::DivFloor: run([](C a, C b) { return floor_divide(a, b); }); return;
    case BinaryOp::DivTrunc:
      if (wide_b) run([](C a, C b) { return trunc_divide<C>(a, b); });  // all in float, as torch's opmath path
      else run([](C a, C b) { return trunc_divide<T>(a, b); });
      return;
    case BinaryOp::Fmod:
      if constexpr (std::is_same_v<C, bool>) run([](C a, C) { return a; });
      else if constexpr (std::is_integral_v<C>) run([](C a, C b) { return int_fmod(a, b); });
      else run([](C a, C b) { return std::fmod(a, b); });
      return;
    case BinaryOp::Atan2:
      if constexpr (!std::is_integral_v<C>) run([](C a, C b) { return std::atan2(a, b); });
      return;
    case BinaryOp::Maximum: run([](C a, C b) { return nan_max(a, b, true); }); return;
    case BinaryOp::Minimum: run([](C a, C b) { return nan_max(a, b, false); }); return;
    case BinaryOp::Fmax:
      if constexpr (std::is_integral_v<C>) run([](C a, C b) { return a > b ? a : b; });
      else run([](C a, C b) { return std::fmax(a, b); });
      return;
    case BinaryOp::Fmin:
      if constexpr (std::is_integral_v<C>) run([](C a, C b) { return a < b ? a : b; });
      else run([](C a, C b) { return std::fmin(a, b); });
      return;
    case BinaryOp::BitAnd: case BinaryOp::BitOr: case BinaryOp::BitXor: case BinaryOp::ShiftLeft:
    case BinaryOp::ShiftRight:
      if constexpr (std::is_same_v<C, bool>) {
        switch (op) {
          case BinaryOp::BitAnd: run([](C a, C b) { return a && b; }); return;
          case BinaryOp::BitOr: run([](C a, C b) { return a || b; }); return;
          case BinaryOp::BitXor: run([](C a, C b) { return a != b; }); return;
          case BinaryOp::ShiftLeft: run([](C a, C b) { return int(a) << int(b); }); return;
          default: run([](C a, C b) { return int(a) >> int(b); }); return;
        }
      } else if constexpr (std::is_integral_v<C>) {
        switch (op) {
          case BinaryOp::BitAnd: run([](C a, C b) { return C(a & b); }); return;
          case BinaryOp::BitOr: run([](C a, C b) { return C(a | b); }); return;
          case BinaryOp::BitXor: run([](C a, C b) { return C(a ^ b); }); return;
          // Shifts past the width give 0 (or -1 for negative right shifts), as torch.
          case BinaryOp::ShiftLeft:
            run([](C a, C b) { return b < 0 || b >= C(sizeof(C) * 8) ? C(0) : C(std::make_unsigned_t<C>(a) << b); });
            return;
          default:
            run([](C a, C b) { return b < 0 || b >= C(sizeof(C) * 8) ? C(a < 0 ? -1 : 0) : C(a >> b); });
            return;
        }
      }
      return;
    default: break;
  }
}

template <typename T>
void comparison(BinaryOp op, const TensorIterator& it) {
  using C = Compute<T>;
  auto run = [&](auto fn) { binary_loop<bool, T>(it, [fn](T a, T b) { return fn(C(a), C(b)); }); };
  switch (op) {
    case BinaryOp::Eq: run([](C a, C b) { return a == b; }); return;
    case BinaryOp::Ne: run([](C a, C b) { return a != b; }); return;
    case BinaryOp::Lt: run([](C a, C b) { return a < b; }); return;
    case BinaryOp::Le: run([](C a, C b) { return a <= b; }); return;
    case BinaryOp::Gt: run([](C a, C b) { return a > b; }); return;
    case BinaryOp::Ge: run([](C a, C b) { return a >= b; }); return;
    case BinaryOp::LogicalAnd: run([](C a, C b) { return a != C(0) && b != C(0); }); return;
    case BinaryOp::LogicalOr: run([](C a, C b) { return a != C(0) || b != C(0); }); return;
    case BinaryOp::LogicalXor: run([](C a, C b) { return (a != C(0)) != (b != C(0)); }); return;
    default: break;
  }
}

}  // namespace

bool pow_scalar_kernel(const TensorIterator& it, double exp) {
  ScalarType t = it.common_dtype();
  if (t != kFloat32 && t != kFloat64 && t != kBFloat16) return false;
  if (exp != 0.5 && exp != -0.5 && exp != -1 && exp != 2 && exp != 3 && exp != -2) return false;
  visit_dtype(t, [&]<typename T>(T) {
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, BFloat16>) {
      using C = Compute<T>;
      auto run = [&](auto fn) { binary_loop<T, T>(it, [fn](T a, T) { return convert<T>(fn(C(a))); }); };
      auto sq = [](C a) { return C(convert<T>(a * a)); };  // rounded to T, as torch's bfloat16 products
      if (exp == 0.5) run([](C a) { return std::sqrt(a); });
      else if (exp == -0.5) run([](C a) { return C(1) / std::sqrt(a); });
      else if (exp == -1) run([](C a) { return C(1) / a; });
      else if (exp == 2) run([](C a) { return a * a; });
      else if (exp == 3) run([sq](C a) { return sq(a) * a; });
      else run([sq](C a) { return C(1) / sq(a); });
    }
  });
  return true;
}

bool reads_wide_scalar(BinaryOp op) {
  return op == BinaryOp::Mul || op == BinaryOp::Div || op == BinaryOp::DivTrunc || op == BinaryOp::DivFloor ||
         op == BinaryOp::FloorDivide;
}

void binary_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  if (it.numel() == 0) return;
  bool compare = op >= BinaryOp::Eq;
  visit_dtype(it.common_dtype(), [&]<typename T>(T) {
    if (compare) comparison<T>(op, it);
    else arithmetic<T>(op, it, alpha, wide_b);
  });
}

}  // namespace ember::cpu

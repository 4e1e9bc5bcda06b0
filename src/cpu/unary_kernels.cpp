// Built with -fno-math-errno so the loops vectorise through libmvec (see vector_math.h).
#include "unary_kernels.h"
#include "compute_type.h"

#include "vector_math.h"

namespace ember::cpu {

namespace {

template <typename C>
C abs_value(C x) {
  if constexpr (std::is_unsigned_v<C>) return x;
  else return C(std::abs(x));
}

// Rounding is the identity on integers.
template <typename C, typename F>
C rounded(C x, F f) {
  if constexpr (std::is_integral_v<C>) return x;
  else return f(x);
}

template <typename C>
C bitwise_not_value(C x) {
  if constexpr (std::is_same_v<C, bool>) return !x;
  else if constexpr (std::is_integral_v<C>) return C(~x);
  else return x;  // unreachable: the op rejects floating inputs
}

template <typename T, typename F>
void unary_loop(const TensorIterator& it, F f) {
  if (it.numel() == 0) return;
  auto plan = it.plan<2>();
  parallel_rows(plan, kParallelGrain / 4, [&](const std::array<char*, 2>& p, int64_t n, const std::array<int64_t, 2>& s) {
    auto* o = reinterpret_cast<T*>(p[0]);
    auto* a = reinterpret_cast<const T*>(p[1]);
    if (s[0] == int64_t(sizeof(T)) && s[1] == int64_t(sizeof(T))) {
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<T*>(p[0] + i * s[0]) = f(*reinterpret_cast<const T*>(p[1] + i * s[1]));
      }
    }
  });
}

}  // namespace

// Bool inputs reach a kernel only for SameBool ops; the op layer converts or rejects the rest.
#define EMBER_UNARY_OP(name, kind, expr)                                                     \
  void name##_kernel(const TensorIterator& it) {                                             \
    visit_dtype(it.common_dtype(), [&]<typename T>(T) {                                      \
      using C = Compute<T>;                                                                  \
      if constexpr (std::is_same_v<T, bool> && UnaryKind::kind != UnaryKind::SameBool &&     \
                    UnaryKind::kind != UnaryKind::Integral) {                                \
        throw Error(#name ": bool input must be converted before the kernel");              \
      } else {                                                                               \
        unary_loop<T>(it, [](T in) { C x = C(in); return convert<T>(expr); });               \
      }                                                                                      \
    });                                                                                      \
  }
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP

}  // namespace ember::cpu

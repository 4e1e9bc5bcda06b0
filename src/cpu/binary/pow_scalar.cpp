// x ** exp for the number exponents torch computes without pow (0.5, -0.5, -1, 2, 3, -2: sqrt, rsqrt,
// reciprocal and products, with their signed zeros and roundings) on float32/64 and bfloat16.
#include "binary_kernels.h"
#include "binary_loop.h"

namespace ember::cpu {

bool pow_scalar_kernel(const TensorIterator& it, double exp) {
  ScalarType t = it.common_dtype();
  if (!kernels::pow_scalar_handles(t, exp)) return false;
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

}  // namespace ember::cpu

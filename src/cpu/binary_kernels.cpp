#include "binary_kernels.h"

namespace ember::cpu {

namespace {

// The type arithmetic runs in: float for the 16- and 8-bit floats, else the type itself.
template <typename T>
using Compute = std::conditional_t<std::is_integral_v<T> || std::is_floating_point_v<T>, T, float>;

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

template <typename T>
void arithmetic(BinaryOp op, const TensorIterator& it, const Scalar& alpha) {
  using C = Compute<T>;
  auto run = [&](auto fn) {
    binary_loop<T, T>(it, [fn](T a, T b) { return convert<T>(fn(C(a), C(b))); });
  };
  C al = alpha.to<C>();
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
    default: break;
  }
}

}  // namespace

void binary_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha) {
  if (it.numel() == 0) return;
  bool compare = op >= BinaryOp::Eq;
  visit_dtype(it.common_dtype(), [&]<typename T>(T) {
    if (compare) comparison<T>(op, it);
    else arithmetic<T>(op, it, alpha);
  });
}

}  // namespace ember::cpu

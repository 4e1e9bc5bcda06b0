// The CPU loop under every unary kernel, and EMBER_UNARY_KERNEL, which expands a row of unary_ops.def
// into its kernel (each section of the table has its own file here, so each compiles fast). The files are
// built with -fno-math-errno so the loops vectorise through libmvec (see vector_math.h).
#pragma once
#include "../../dispatch/unary_kernel_dtype.h"
#include "../../functors/unary.h"
#include "../compute_type.h"
#include "../strided_loop.h"
#include "../unary_kernels.h"
#include "../vector_math.h"

namespace ember::cpu {

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

}  // namespace ember::cpu

// The kernel of one row, built for the dtypes the op layer lets through (unary_kernel_dtype).
#define EMBER_UNARY_KERNEL(name, kind, expr)                                                          \
  void name##_kernel(const TensorIterator& it) {                                                      \
    visit_dtype(it.common_dtype(), [&]<typename T>(T) {                                               \
      using C = Compute<T>;                                                                           \
      using namespace functors;                                                                       \
      if constexpr (!unary_kernel_dtype<T>(UnaryKind::kind, #name)) {                                \
        throw Error(#name ": the op layer must reject or convert this dtype first");                 \
      } else {                                                                                        \
        unary_loop<T>(it, [](T in) { C x = C(in); return convert<T>(expr); });                        \
      }                                                                                               \
    });                                                                                               \
  }

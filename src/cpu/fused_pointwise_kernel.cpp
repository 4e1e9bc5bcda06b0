// lerp, addcmul, addcdiv, clamp by numbers and nan_to_num on the CPU: one pass over (out, inputs...) in the compute
// type, as torch's kernels.
#include "fused_pointwise_kernel.h"

#include "../dispatch/fused_pointwise.h"
#include "compute_type.h"
#include "strided_loop.h"

namespace ember::cpu {

namespace {

// out[i] = f(in[i]...) of element type T, computed in C. Contiguous rows are loops the compiler vectorises; in
// place (out is the first input) reads o alone, which GCC vectorises where its alias check would not.
template <typename T, typename F, size_t... I>
void fused_loop(const TensorIterator& it, const F& f_shared, std::index_sequence<I...>) {
  using C = Compute<T>;
  constexpr size_t N = 1 + sizeof...(I);
  parallel_rows(it.plan<N>(), kParallelGrain, [&](const std::array<char*, N>& p, int64_t n,
                                                  const std::array<int64_t, N>& s) {
    const F f = f_shared;  // a local copy: f's numbers read through a reference could alias o (no vector loop)
    auto* o = reinterpret_cast<T*>(p[0]);
    const T* in[sizeof...(I)] = {reinterpret_cast<const T*>(p[I + 1])...};
    constexpr int64_t size = sizeof(T);
    if (s[0] == size && ((s[I + 1] == size) && ...)) {
      if (o == in[0]) {
        for (int64_t i = 0; i < n; ++i) o[i] = convert<T>(f(C((I == 0 ? o : in[I])[i])...));
        return;
      }
      for (int64_t i = 0; i < n; ++i) o[i] = convert<T>(f(C(in[I][i])...));
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      T r = convert<T>(f(C(*reinterpret_cast<const T*>(p[I + 1] + i * s[I + 1]))...));
      *reinterpret_cast<T*>(p[0] + i * s[0]) = r;
    }
  });
}

}  // namespace

void fused_pointwise_kernel(FusedPointwise op, const TensorIterator& it, std::span<const Scalar> values) {
  if (it.numel() == 0) return;
  visit_fused_pointwise(op, it.common_dtype(), values, [&]<typename T, typename F>(const F& f) {
    fused_loop<T>(it, f, std::make_index_sequence<F::arity>{});
  });
}

}  // namespace ember::cpu

// where(cond, a, b) on the CPU: one strided pass over (out, cond, a, b).
#include "where_kernel.h"

#include "strided_loop.h"

namespace ember::cpu {

void where_kernel(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  visit_dtype(out.dtype(), [&]<typename T>(T) {
    auto plan = make_plan<4>(out.sizes(), {out.strides(), cond.strides(), a.strides(), b.strides()},
                             {int64_t(sizeof(T)), 1, int64_t(sizeof(T)), int64_t(sizeof(T))},
                             {static_cast<char*>(out.data_ptr()), static_cast<char*>(cond.data_ptr()),
                              static_cast<char*>(a.data_ptr()), static_cast<char*>(b.data_ptr())});
    parallel_rows(plan, kParallelGrain, [](const std::array<char*, 4>& p, int64_t n, const std::array<int64_t, 4>& s) {
      for (int64_t i = 0; i < n; ++i) {
        bool pick_a = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
        *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[pick_a ? 2 : 3] + i * s[pick_a ? 2 : 3]);
      }
    });
  });
}

}  // namespace ember::cpu

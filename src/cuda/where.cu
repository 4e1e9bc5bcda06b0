// where(cond, a, b) on CUDA: one elementwise pass over (out, cond, a, b); a number operand is bound in.
#include "elementwise.cuh"
#include "kernels.h"

namespace ember::cuda_backend {

namespace {
template <typename T>
struct Select {
  __device__ T operator()(bool c, T a, T b) const { return c ? a : b; }
};
}  // namespace

void where_kernel(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  visit_dtype(out.dtype(), [&]<typename T>(T) {
    elementwise_tensors<T, bool, T, T>(out, {&cond, &a, &b}, Select<T>{});
  });
}

}  // namespace ember::cuda_backend

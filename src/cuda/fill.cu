// fill_: every element of a CUDA tensor set to one value (converted to its dtype on the host).
#include "elementwise.cuh"
#include "kernels.h"

namespace ember::cuda_backend {

namespace {
template <typename T>
struct Constant {
  T value;
  __device__ T operator()() const { return value; }
};
}  // namespace

void fill_kernel(const Tensor& dst, const Scalar& value) {
  visit_dtype(dst.dtype(), [&]<typename T>(T) {
    T v = value.to<T>();  // checked even for an empty tensor, as torch
    elementwise<T>(plan_of(dst), Constant<T>{v});
  });
}

}  // namespace ember::cuda_backend

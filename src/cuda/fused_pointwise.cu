// lerp, addcmul, addcdiv, clamp by numbers and nan_to_num on CUDA: one elementwise pass in the compute type (src/functors/pointwise.h); a number
// operand is bound in.
#include "../dispatch/fused_pointwise.h"
#include "elementwise.cuh"
#include "kernels.h"

namespace ember::cuda_backend {

namespace {

// Functor f over elements of type T, computed in Compute<T> and rounded back to T.
template <typename T, typename F>
struct InCompute {
  F f;
  template <typename... A>
  __device__ T operator()(A... a) const { return convert<T>(f(functors::Compute<T>(a)...)); }
};

}  // namespace

void fused_pointwise_kernel(FusedPointwise op, const TensorIterator& it, std::span<const Scalar> values) {
  visit_fused_pointwise(op, it.common_dtype(), values, [&]<typename T, typename F>(const F& f) {
    if constexpr (F::arity == 1) elementwise_tensors<T, T>(it.output(), inputs_of<1>(it), InCompute<T, F>{f});
    else if constexpr (F::arity == 2) elementwise_tensors<T, T, T>(it.output(), inputs_of<2>(it), InCompute<T, F>{f});
    else elementwise_tensors<T, T, T, T>(it.output(), inputs_of<3>(it), InCompute<T, F>{f});
  });
}

}  // namespace ember::cuda_backend

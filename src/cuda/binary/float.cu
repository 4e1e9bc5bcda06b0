// Kernels of the Float rows of binary_ops.def: div, atan2, copysign, hypot, xlogy (integers arrive converted to float),
// and x ** number without pow.
#include "binary.cuh"

namespace ember::cuda_backend {

template void binary_rows_kernel<BinaryKind::Float, true>(BinaryOp, const TensorIterator&, const Scalar&,
                                                          std::optional<float>);

namespace {

// x ** exp for the exponents torch computes without pow, as the CPU's pow_scalar_kernel
// (src/cpu/binary/pow_scalar.cpp): sqrt, rsqrt, reciprocal and products, squares rounded to T.
template <typename T>
struct PowScalar {
  double exp;
  __device__ T operator()(T x) const {
    using C = functors::Compute<T>;
    C a = C(x);
    C sq = C(convert<T>(a * a));
    C r = exp == 0.5 ? std::sqrt(a) : exp == -0.5 ? C(1) / std::sqrt(a) : exp == -1 ? C(1) / a
        : exp == 2 ? a * a : exp == 3 ? sq * a : C(1) / sq;
    return convert<T>(r);
  }
};

}  // namespace

bool pow_scalar_kernel(const TensorIterator& it, double exp) {
  ScalarType t = it.common_dtype();
  if (!kernels::pow_scalar_handles(t, exp)) return false;
  visit_dtype(t, [&]<typename T>(T) {
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, BFloat16>) {
      elementwise_tensors<T, T>(it.output(), inputs_of<1>(it), PowScalar<T>{exp});
    }
  });
  return true;
}

}  // namespace ember::cuda_backend

// The CUDA binary kernel (each op runs in the file of its kind and dtype family) and x ** number without pow.
#include <optional>

#include "../../functors/compute.h"
#include "../elementwise.cuh"
#include "../kernels.h"

namespace ember::cuda_backend {

// Defined in binary.cuh; each (kind, family) is built in a file of its own (arith_float.cu, ...).
template <BinaryKind Kind, bool Floating>
void binary_rows_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);

void binary_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  if (it.numel() == 0) return;
  bool floating = is_floating_point(it.common_dtype());
  auto run = [&]<BinaryKind K>() {
    if (floating) binary_rows_kernel<K, true>(op, it, alpha, wide_b);
    else binary_rows_kernel<K, false>(op, it, alpha, wide_b);
  };
  switch (binary_kind(op)) {
    case BinaryKind::Arith: return run.operator()<BinaryKind::Arith>();
    case BinaryKind::Divide: return run.operator()<BinaryKind::Divide>();
    case BinaryKind::Compare: return run.operator()<BinaryKind::Compare>();
    case BinaryKind::Logical: return run.operator()<BinaryKind::Logical>();
    // the op layer converts integers to float for Float ops and refuses floating types for Bitwise ones
    case BinaryKind::Float: return binary_rows_kernel<BinaryKind::Float, true>(op, it, alpha, wide_b);
    case BinaryKind::Bitwise: return binary_rows_kernel<BinaryKind::Bitwise, false>(op, it, alpha, wide_b);
  }
}

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

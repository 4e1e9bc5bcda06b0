// The GPU's binary kernels: one functor per row of binary_ops.def, run in the element type with the CPU's rules
// (src/cpu/binary/binary_loop.h): compute in Compute<T>, alpha rounded to T first, a wide float b for WideScalar
// ops. Each kind's rows expand into a switch in their own file (arith.cu, ...), so each compiles fast.
#pragma once
#include <optional>

// The shared functors test `b < 0` for every integer type; on uint8 nvcc calls that pointless (#186).
#pragma nv_diag_suppress 186

#include "../../functors/binary.h"
#include "../../functors/compute.h"
#include "../elementwise.cuh"
#include "../kernels.h"

namespace ember::cuda_backend {

namespace binary_rows {
using namespace functors;
#define EMBER_BINARY_OP(name, Op, kind, expr, python, flags) \
  struct Op {                                                 \
    template <class C>                                        \
    __device__ auto operator()(C a, C b) const {              \
      return expr;                                            \
    }                                                         \
  };
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
// div(rounding_mode="floor"): floor_divide's function.
struct DivFloor : FloorDivide {};
// div(rounding_mode="trunc"): the quotient rounded to R first.
template <typename R>
struct DivTrunc {
  template <class C>
  __device__ C operator()(C a, C b) const { return trunc_divide<R>(a, b); }
};
}  // namespace binary_rows

// Row functor fn over elements of type T: fn(C(a), C(b)) rounded back to T (C = Compute<T>).
template <typename T, typename Fn>
struct InCompute {
  Fn fn;
  __device__ T operator()(T a, T b) const {
    using C = functors::Compute<T>;
    return convert<T>(fn(C(a), C(b)));
  }
};
// ... with b scaled by alpha (already rounded to T).
template <typename T, typename Fn>
struct WithAlpha {
  Fn fn;
  functors::Compute<T> alpha;
  __device__ T operator()(T a, T b) const {
    using C = functors::Compute<T>;
    if constexpr (std::is_same_v<C, bool>) return convert<T>(fn(C(a), C(alpha && b)));
    else return convert<T>(fn(C(a), C(alpha * C(b))));
  }
};
// ... with b replaced by its wide value (a one-element b of a float16/bfloat16 WideScalar op).
template <typename T, typename Fn>
struct WithWide {
  Fn fn;
  float b;
  __device__ T operator()(T a) const { return convert<T>(fn(float(a), b)); }
};
// A Compare or Logical row: bool result.
template <typename T, typename Fn>
struct Compared {
  Fn fn;
  __device__ bool operator()(T a, T b) const {
    using C = functors::Compute<T>;
    return bool(fn(C(a), C(b)));
  }
};

// Runs row functor fn of an op with `Flags` over the iterator in element type T.
template <typename T, unsigned Flags, typename Fn>
void run_binary(const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b, Fn fn) {
  using C = functors::Compute<T>;
  const Tensor& out = it.output();
  if constexpr ((Flags & binary_flags::WideScalar) && std::is_same_v<C, float> && !std::is_same_v<T, float>) {
    if (wide_b) return elementwise_tensors<T, T>(out, inputs_of<1>(it), WithWide<T, Fn>{fn, *wide_b});
  }
  if constexpr (Flags & binary_flags::Alpha) {
    if (alpha.to_double() != 1.0) {
      C al = C(alpha.to<T>());  // rounded to the element type first, as torch
      return elementwise_tensors<T, T, T>(out, inputs_of<2>(it), WithAlpha<T, Fn>{fn, al});
    }
  }
  elementwise_tensors<T, T, T>(out, inputs_of<2>(it), InCompute<T, Fn>{fn});
}

// Calls fn(T{}) for the iterator's dtype T if an op of `kind` with `Flags` takes it (as the CPU's visit_kind);
// the op layer rejects or converts the others first.
template <BinaryKind kind, unsigned Flags, typename Fn>
void visit_kind(ScalarType t, Fn&& fn) {
  visit_dtype(t, [&]<typename T>(T) {
    constexpr bool floating = !std::is_integral_v<T>;
    constexpr bool accepted = (functors::is_float8<T> ? (Flags & binary_flags::Float8) != 0 : true) &&
                              (kind == BinaryKind::Float ? floating : kind == BinaryKind::Bitwise ? !floating
                               : kind == BinaryKind::Divide ? !std::is_same_v<T, bool> : true);
    if constexpr (accepted) fn(T{});
    else throw Error(str("binary kernel: dtype ", dtype_info(t).name, " must be rejected or converted first"));
  });
}

void binary_arith(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
void binary_divide(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
void binary_float(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
void binary_bitwise(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b);
void binary_compare(BinaryOp op, const TensorIterator& it);

}  // namespace ember::cuda_backend

// One case of a kind's switch (the including file maps EMBER_CUDA_BINARY_<kind> to it): the row's functor over
// each element type the op takes. Rows of the other kinds expand to nothing.
#define EMBER_CUDA_BINARY_CASE(Op, kind, flags)                                               \
  case BinaryOp::Op:                                                                          \
    visit_kind<BinaryKind::kind, (flags)>(it.common_dtype(), [&]<typename T>(T) {             \
      run_binary<T, (flags)>(it, alpha, wide_b, binary_rows::Op{});                          \
    });                                                                                       \
    return;
#define EMBER_CUDA_BINARY_ROW(name, Op, kind, expr, python, flags) EMBER_CUDA_BINARY_##kind(Op, kind, flags)
#ifndef EMBER_CUDA_BINARY_Arith
#define EMBER_CUDA_BINARY_Arith(Op, kind, flags)
#endif
#ifndef EMBER_CUDA_BINARY_Divide
#define EMBER_CUDA_BINARY_Divide(Op, kind, flags)
#endif
#ifndef EMBER_CUDA_BINARY_Float
#define EMBER_CUDA_BINARY_Float(Op, kind, flags)
#endif
#ifndef EMBER_CUDA_BINARY_Bitwise
#define EMBER_CUDA_BINARY_Bitwise(Op, kind, flags)
#endif
#ifndef EMBER_CUDA_BINARY_Compare
#define EMBER_CUDA_BINARY_Compare(Op, kind, flags)
#endif
#ifndef EMBER_CUDA_BINARY_Logical
#define EMBER_CUDA_BINARY_Logical(Op, kind, flags)
#endif

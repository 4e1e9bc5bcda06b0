// The GPU's binary kernels: one functor per row of binary_ops.def, run in the element type with the CPU's rules
// (src/cpu/binary/binary_loop.h): compute in Compute<T>, alpha rounded to T first, a wide float b for WideScalar ops.
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

// Calls fn(T{}) for the iterator's dtype T if an op of `kind` with `Flags` takes it (as the CPU's visit_kind) and T is
// of the family built (Floating: the floating types, else integers and bool); the op layer rejects or converts the
// others first, and binary_kernel picks the family.
template <BinaryKind kind, unsigned Flags, bool Floating, typename Fn>
void visit_kind(ScalarType t, Fn&& fn) {
  visit_dtype(t, [&]<typename T>(T) {
    constexpr bool floating = !std::is_integral_v<T>;
    constexpr bool accepted = floating == Floating &&
                              (functors::is_float8<T> ? (Flags & binary_flags::Float8) != 0 : true) &&
                              (kind == BinaryKind::Float ? floating : kind == BinaryKind::Bitwise ? !floating
                               : kind == BinaryKind::Divide ? !std::is_same_v<T, bool> : true);
    if constexpr (accepted) fn(T{});
    else throw Error(str("binary kernel: dtype ", dtype_info(t).name, " must be rejected or converted first"));
  });
}

// Runs row functor fn of an op of `kind` with `Flags` over the iterator (a comparison's inputs swapped where
// `swapped`).
template <BinaryKind kind, unsigned Flags, bool Floating, typename Fn>
void run_row(const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b, Fn fn, bool swapped = false) {
  visit_kind<kind, Flags, Floating>(it.common_dtype(), [&]<typename T>(T) {
    if constexpr (kind == BinaryKind::Compare || kind == BinaryKind::Logical) {
      auto in = inputs_of<2>(it);
      if (swapped) std::swap(in[0], in[1]);
      elementwise_tensors<bool, T, T>(it.output(), in, Compared<T, Fn>{fn});
    } else {
      run_binary<T, Flags>(it, alpha, wide_b, fn);
    }
  });
}

// The kernels of the rows of binary_ops.def of one kind over one dtype family; each (kind, family) is instantiated
// in a file of its own (arith_float.cu, arith_int.cu, ...), so each compiles fast. gt and ge run swapped
// (is_swapped_row).
template <BinaryKind Kind, bool Floating>
void binary_rows_kernel(BinaryOp op, const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b) {
  using namespace binary_flags;
  bool swapped = is_swapped_row(op);
  switch (unswapped_row(op)) {
#define EMBER_BINARY_OP(name, Op, kind, expr, python, flags)                                    \
    case BinaryOp::Op:                                                                          \
      if constexpr (BinaryKind::kind == Kind && !is_swapped_row(BinaryOp::Op)) {                \
        return run_row<Kind, (flags), Floating>(it, alpha, wide_b, binary_rows::Op{}, swapped); \
      }                                                                                         \
      break;
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
    case BinaryOp::DivFloor:
      if constexpr (Kind == BinaryKind::Divide) {
        return run_row<Kind, WideScalar, Floating>(it, alpha, wide_b, binary_rows::DivFloor{});
      }
      break;
    case BinaryOp::DivTrunc:  // with a wide b, all in float (torch's opmath path)
      if constexpr (Kind == BinaryKind::Divide) {
        return visit_kind<Kind, WideScalar, Floating>(it.common_dtype(), [&]<typename T>(T) {
          using C = functors::Compute<T>;
          if (wide_b) run_binary<T, WideScalar>(it, alpha, wide_b, binary_rows::DivTrunc<C>{});
          else run_binary<T, 0>(it, alpha, wide_b, binary_rows::DivTrunc<T>{});
        });
      }
      break;
    default: break;
  }
  throw Error(str("binary kernel: ", binary_op_name(op), " is not of this kernel's kind"));
}

}  // namespace ember::cuda_backend

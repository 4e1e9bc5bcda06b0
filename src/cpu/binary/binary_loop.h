// The CPU loop under every binary kernel: out[i] = f(a[i], b[i]) over a planned iterator, and the expansion
// of binary_ops.def rows into kernels, one file per kind (arith.cpp, divide.cpp, ...) so each compiles fast.
#pragma once
#include <optional>

#include "../../dispatch/kernels.h"
#include "../../functors/binary.h"
#include "../compute_type.h"
#include "../strided_loop.h"
#include "ember/ops.h"

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace ember::cpu {

// Large float outputs are written with streaming stores: they bypass the cache, so the
// destination is not read first (a third less memory traffic for a + b at 16M elements).
constexpr int64_t kStreamBytes = 1 << 20;

template <typename Out, typename T, typename F>
bool stream_contiguous(Out* o, const T* a, const T* b, int64_t n, F& f) {
#ifdef __AVX2__
  if constexpr (std::is_same_v<Out, float>) {
    if (n * int64_t(sizeof(float)) < kStreamBytes) return false;
    int64_t i = 0;
    for (; i < n && (reinterpret_cast<uintptr_t>(o + i) & 31); ++i) o[i] = f(a[i], b[i]);
    for (; i + 8 <= n; i += 8) {
      alignas(32) float block[8];
      for (int k = 0; k < 8; ++k) block[k] = f(a[i + k], b[i + k]);
      _mm256_stream_ps(o + i, _mm256_load_ps(block));
    }
    for (; i < n; ++i) o[i] = f(a[i], b[i]);
    _mm_sfence();
    return true;
  }
#endif
  return false;
}

// out[i] = f(a[i], b[i]) over a plan of (out, a, b), or of (out, b, a) where `swapped`; the contiguous and
// scalar-operand cases are separate loops the compiler vectorises.
template <typename Out, typename T, typename F>
void binary_loop(const TensorIterator& it, F f_shared, bool swapped = false) {
  auto plan = it.plan<3>();
  if (swapped) {
    std::swap(plan.base[1], plan.base[2]);
    std::swap(plan.strides[1], plan.strides[2]);
  }
  parallel_rows(plan, kParallelGrain, [&](const std::array<char*, 3>& p, int64_t n, const std::array<int64_t, 3>& s) {
    F f = f_shared;  // a local copy: f's numbers read through the closure could alias o, which blocks vectorising
    auto* o = reinterpret_cast<Out*>(p[0]);
    auto* a = reinterpret_cast<const T*>(p[1]);
    auto* b = reinterpret_cast<const T*>(p[2]);
    constexpr int64_t so = sizeof(Out), st = sizeof(T);
    if (s[0] == so && s[1] == st && s[2] == st) {
      if constexpr (std::is_same_v<Out, T>) {
        // In place (x += y): GCC's runtime alias check sees o and a overlap and takes its scalar loop (8x slower);
        // o alone, read and written at the same index, vectorises.
        if (o == a) {
          for (int64_t i = 0; i < n; ++i) o[i] = f(o[i], b[i]);
          return;
        }
      }
      if (stream_contiguous(o, a, b, n, f)) return;
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
    } else if (s[0] == so && s[1] == st && s[2] == 0) {
      T bv = *b;
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], bv);
    } else if (s[0] == so && s[1] == 0 && s[2] == st) {
      T av = *a;
      for (int64_t i = 0; i < n; ++i) o[i] = f(av, b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<Out*>(p[0] + i * s[0]) =
            f(*reinterpret_cast<const T*>(p[1] + i * s[1]), *reinterpret_cast<const T*>(p[2] + i * s[2]));
      }
    }
  });
}

// Runs element function `fn` (in the compute type C) of an op with `flags` over the iterator, element type T:
// b scaled by alpha (Alpha ops), or replaced by its wide value (WideScalar ops on float16/bfloat16).
template <typename T, unsigned Flags, typename Fn>
void run_binary(const TensorIterator& it, const Scalar& alpha, std::optional<float> wide_b, Fn fn) {
  using C = Compute<T>;
  if constexpr ((Flags & binary_flags::WideScalar) && std::is_same_v<C, float> && !std::is_same_v<T, float>) {
    if (wide_b) {
      float w = *wide_b;
      binary_loop<T, T>(it, [fn, w](T a, T) { return convert<T>(fn(C(a), w)); });
      return;
    }
  }
  if constexpr (Flags & binary_flags::Alpha) {
    if (alpha.to_double() != 1.0) {
      C al = C(alpha.to<T>());  // rounded to the element type first, as torch
      binary_loop<T, T>(it, [fn, al](T a, T b) {
        if constexpr (std::is_same_v<C, bool>) return convert<T>(fn(a, al && b));
        else return convert<T>(fn(C(a), al * C(b)));
      });
      return;
    }
  }
  binary_loop<T, T>(it, [fn](T a, T b) { return convert<T>(fn(C(a), C(b))); });
}

// Calls fn(T{}) for the element types an op of kind `Kind` ('A'rith, 'D'ivide, 'F'loat, 'B'itwise, 'C'ompare) with
// `Flags` takes; the op layer rejects or converts the others first.
template <char Kind, unsigned Flags, typename Fn>
void visit_kind(ScalarType t, Fn&& fn) {
  visit_dtype(t, [&]<typename T>(T) {
    constexpr bool floating = !std::is_integral_v<T>;
    constexpr bool accepted = (is_float8<T> ? (Flags & binary_flags::Float8) != 0 : true) &&
                              (Kind == 'F' ? floating : Kind == 'B' ? !floating
                               : Kind == 'D' ? !std::is_same_v<T, bool> : true);
    if constexpr (accepted) fn(T{});
    else throw Error(str("binary kernel: dtype ", dtype_info(t).name, " must be rejected or converted first"));
  });
}

}  // namespace ember::cpu

// Expands the rows of binary_ops.def of one kind (EMBER_BINARY_<kind>(Op, expr, flags), defined by the
// including file) as switch cases; rows of the other kinds expand to nothing.
#define EMBER_BINARY_OP(name, Op, kind, expr, python, flags) EMBER_BINARY_##kind(Op, expr, flags)
#ifndef EMBER_BINARY_Arith
#define EMBER_BINARY_Arith(Op, expr, flags)
#endif
#ifndef EMBER_BINARY_Divide
#define EMBER_BINARY_Divide(Op, expr, flags)
#endif
#ifndef EMBER_BINARY_Float
#define EMBER_BINARY_Float(Op, expr, flags)
#endif
#ifndef EMBER_BINARY_Bitwise
#define EMBER_BINARY_Bitwise(Op, expr, flags)
#endif
#ifndef EMBER_BINARY_Compare
#define EMBER_BINARY_Compare(Op, expr, flags)
#endif
#ifndef EMBER_BINARY_Logical
#define EMBER_BINARY_Logical(Op, expr, flags)
#endif

// One case of a kind's switch (the including file defines EMBER_BINARY_KIND): the row's element function
// over each element type the op takes.
#define EMBER_BINARY_CASE(Op, expr, flags)                                                            \
  case BinaryOp::Op:                                                                                  \
    visit_kind<EMBER_BINARY_KIND, (flags)>(it.common_dtype(), [&]<typename T>(T) {                    \
      using C = Compute<T>;                                                                           \
      run_binary<T, (flags)>(it, alpha, wide_b, [](C a, C b) { return expr; });                      \
    });                                                                                               \
    return;

// Declares glibc's math functions with their libmvec SIMD variants: in files built with
// -fno-math-errno, GCC then vectorises loops over them (AVX2 expf, tanhf, erff, ...).
#pragma once
#include <cmath>

extern "C" {
#define EMBER_SIMD(fn) float fn##f(float) noexcept __attribute__((simd("notinbranch"))); \
                       double fn(double) noexcept __attribute__((simd("notinbranch")));
EMBER_SIMD(exp) EMBER_SIMD(exp2) EMBER_SIMD(expm1) EMBER_SIMD(log) EMBER_SIMD(log2) EMBER_SIMD(log10)
EMBER_SIMD(log1p) EMBER_SIMD(sin) EMBER_SIMD(cos) EMBER_SIMD(tan) EMBER_SIMD(asin) EMBER_SIMD(acos)
EMBER_SIMD(atan) EMBER_SIMD(sinh) EMBER_SIMD(cosh) EMBER_SIMD(tanh) EMBER_SIMD(erf) EMBER_SIMD(erfc)
#undef EMBER_SIMD
}

// Matrix-vector products for float and double, written out rather than left to BLIS: BLIS's
// small gemv paths skip zero vector elements (axpy with alpha 0), which drops 0 * inf = NaN.
#pragma once
#include <cstdint>

namespace ember::cpu {

// y[r * y_stride] = alpha * sum_c mat[r * rs + c * cs] * v[c * v_stride] + beta * y[...] for r < rows,
// c < cols (beta == 0 ignores y's old values, NaN included). Parallel over rows.
template <typename T>
void gemv(const T* mat, int64_t rows, int64_t cols, int64_t rs, int64_t cs, const T* v, int64_t v_stride,
          T* y, int64_t y_stride, T alpha, T beta);

}  // namespace ember::cpu

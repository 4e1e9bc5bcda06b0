#include "gemv.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "compute_type.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

// Dot product of contiguous `a` with strided `b` in four vector accumulators (every product
// counted: inf * 0 stays NaN).
template <typename T>
T dot(const T* a, const T* b, int64_t b_stride, int64_t n) {
  using V = typename Vec32<T>::type;
  constexpr int64_t W = sizeof(V) / sizeof(T);
  int64_t i = 0;
  T s = 0;
  if (b_stride == 1 && n >= 4 * W) {
    V acc[4] = {};
    for (; i + 4 * W <= n; i += 4 * W) {
      for (int k = 0; k < 4; ++k) {
        V va, vb;
        std::memcpy(&va, a + i + k * W, sizeof(V));
        std::memcpy(&vb, b + i + k * W, sizeof(V));
        acc[k] += va * vb;
      }
    }
    V total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (int64_t l = 0; l < W; ++l) s += total[l];
  }
  for (; i < n; ++i) s += a[i] * b[i * b_stride];
  return s;
}

}  // namespace

template <typename T>
void gemv(const T* mat, int64_t rows, int64_t cols, int64_t rs, int64_t cs, const T* v, int64_t v_stride,
          T* y, int64_t y_stride, T alpha, T beta) {
  auto finish = [&](int64_t r, T sum) {
    T& out = y[r * y_stride];
    out = alpha * sum + (beta == T(0) ? T(0) : beta * out);
  };
  // Threads only for products of 1M elements and more (waking the pool costs more below; BLAS
  // products use the same threshold of 2 MFLOP).
  int64_t grain = std::max<int64_t>(1, (int64_t(1) << 20) / std::max<int64_t>(cols, 1));
  if (cs == 1 || rs != 1) {  // rows of `mat` are contiguous (or neither dim is): one dot product per row
    parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
      std::vector<T> row(cs == 1 ? 0 : static_cast<size_t>(cols));
      for (int64_t r = b; r < e; ++r) {
        const T* m = mat + r * rs;
        if (cs != 1) {
          for (int64_t c = 0; c < cols; ++c) row[size_t(c)] = m[c * cs];
          m = row.data();
        }
        finish(r, dot(m, v, v_stride, cols));
      }
    });
    return;
  }
  // Columns of `mat` are contiguous: accumulate column * v[c] into a block of row sums.
  parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
    std::vector<T> acc(static_cast<size_t>(e - b), T(0));
    for (int64_t c = 0; c < cols; ++c) {
      const T* col = mat + c * cs + b;
      T vc = v[c * v_stride];
      for (int64_t r = 0; r < e - b; ++r) acc[size_t(r)] += col[r] * vc;
    }
    for (int64_t r = b; r < e; ++r) finish(r, acc[size_t(r - b)]);
  });
}

template void gemv<float>(const float*, int64_t, int64_t, int64_t, int64_t, const float*, int64_t, float*, int64_t,
                          float, float);
template void gemv<double>(const double*, int64_t, int64_t, int64_t, int64_t, const double*, int64_t, double*,
                           int64_t, double, double);

}  // namespace ember::cpu

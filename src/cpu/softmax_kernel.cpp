// Per row: a pass for the max, one for exp, one for the sum, one to scale; each vectorises
// (exp through libmvec: this file is built with -fno-math-errno). The max shift keeps it stable.
#include "softmax_kernel.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ember/parallel.h"
#include "reduce_kernels.h"
#include "vector_math.h"

namespace ember::cpu {

namespace {

// exp_buf holds n values: the exponentials land there (or directly in y for softmax).
// The row's maximum: four vector accumulators (a scalar compare chain is latency-bound). NaNs
// are skipped here; they still reach the output through exp.
template <typename C>
C row_max(const C* x, int64_t n) {
  using V = C __attribute__((vector_size(32)));
  constexpr int64_t W = sizeof(V) / sizeof(C);
  C m = x[0];
  int64_t i = 0;
  if (n >= 4 * W) {
    V acc[4];
    for (auto& a : acc) a = m - V{};
    for (; i + 4 * W <= n; i += 4 * W) {
      for (int k = 0; k < 4; ++k) {
        V v;
        std::memcpy(&v, x + i + k * W, sizeof(V));
        acc[k] = v > acc[k] ? v : acc[k];
      }
    }
    for (int k = 1; k < 4; ++k) acc[0] = acc[k] > acc[0] ? acc[k] : acc[0];
    for (int64_t l = 0; l < W; ++l) m = acc[0][l] > m ? acc[0][l] : m;
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

template <typename C>
void softmax_row(const C* x, C* y, C* exp_buf, int64_t n, bool log) {
  C m = row_max(x, n);
  // Rows holding NaN or infinities come out NaN through IEEE arithmetic, as in torch.
  C* e = log ? exp_buf : y;
  for (int64_t i = 0; i < n; ++i) e[i] = std::exp(x[i] - m);
  double sum = sum_contiguous(e, n);
  if (log) {
    C shift = m + C(std::log(sum));
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
  } else {
    C inv = C(1.0 / sum);
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  }
}

}  // namespace

void softmax_kernel(const Tensor& x, const Tensor& out, bool log) {
  int64_t rows = x.sizes()[0], n = x.sizes()[1];
  if (rows == 0 || n == 0) return;
  int64_t grain = std::max<int64_t>(1, 16384 / n);
  visit_dtype(x.dtype(), [&]<typename T>(T) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* px = x.data_ptr<T>();
      T* py = out.data_ptr<T>();
      parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
        std::vector<T> buf(log ? static_cast<size_t>(n) : 0);
        for (int64_t r = b; r < e; ++r) softmax_row(px + r * n, py + r * n, buf.data(), n, log);
      });
    } else {
      throw NotImplementedError(str("softmax of ", dtype_name(x.dtype()), " must be computed in float32"));
    }
  });
}

}  // namespace ember::cpu

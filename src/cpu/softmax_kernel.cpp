// One pass per row for the max, one for exp and its sum, one to scale: the numerically stable
// form, vectorised through libmvec (built with -fno-math-errno).
#include "softmax_kernel.h"

#include <algorithm>
#include <vector>

#include "ember/parallel.h"
#include "vector_math.h"

namespace ember::cpu {

namespace {

template <typename C>
void softmax_row(const C* x, C* y, int64_t n, bool log) {
  C m = x[0];
  for (int64_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  if (m != m) m = C(0);  // a NaN row stays NaN below
  double sum = 0;
  C block = 0;
  for (int64_t i = 0; i < n; ++i) {
    C e = std::exp(x[i] - m);
    if (!log) y[i] = e;
    block += e;
    if ((i & 127) == 127) {
      sum += double(block);
      block = 0;
    }
  }
  sum += double(block);
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
        for (int64_t r = b; r < e; ++r) softmax_row(px + r * n, py + r * n, n, log);
      });
    } else {
      throw NotImplementedError(str("softmax of ", dtype_name(x.dtype()), " must be computed in float32"));
    }
  });
}

}  // namespace ember::cpu

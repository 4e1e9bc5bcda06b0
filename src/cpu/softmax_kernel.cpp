// Per row: a pass for the max, one for exp (into a row buffer), one for the sum, one to write the
// output; each vectorises (exp through libmvec: this file is built with -fno-math-errno). The max
// shift keeps it stable. Large float outputs are written with streaming stores.
#include "softmax_kernel.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ember/parallel.h"
#include "compute_type.h"
#include "reduce_kernels.h"
#include "row_max.h"
#include "stream_store.h"
#include "vector_math.h"

namespace ember::cpu {

namespace {

// y[i] = value(i), streamed when asked and possible.
template <typename C, typename F>
void store_row(C* y, int64_t n, bool stream, F&& value) {
  if constexpr (std::is_same_v<C, float>) {
    if (stream && store_streaming(y, n, value)) return;
  }
  for (int64_t i = 0; i < n; ++i) y[i] = value(i);
}

// v rounded to `dtype` when that is float16 or bfloat16.
double narrow_to(double v, ScalarType dtype) {
  if (dtype == kFloat16) return float(Half(float(v)));
  return dtype == kBFloat16 ? float(BFloat16(float(v))) : v;
}

// exp_buf holds the row's n exponentials.
template <typename C>
void softmax_row(const C* x, C* y, C* exp_buf, int64_t n, bool log, bool stream, ScalarType source) {
  C m = row_max(x, n);
  // Rows holding NaN or infinities come out NaN through IEEE arithmetic, as in torch.
  for (int64_t i = 0; i < n; ++i) exp_buf[i] = std::exp(x[i] - m);
  double sum = sum_contiguous(exp_buf, n);
  if (log) {
    // (x - m) - log_sum, in torch's order: x - (m + log_sum) rounds more
    C log_sum = C(narrow_to(C(std::log(narrow_to(sum, source))), source));
    store_row(y, n, stream, [&](int64_t i) { return (x[i] - m) - log_sum; });
  } else {
    C inv = C(1.0 / sum);
    store_row(y, n, stream, [&](int64_t i) { return exp_buf[i] * inv; });
  }
}

}  // namespace

void softmax_kernel(const Tensor& x, const Tensor& out, bool log, ScalarType source) {
  int64_t rows = x.sizes()[0], n = x.sizes()[1];
  if (rows == 0 || n == 0) return;
  int64_t grain = std::max<int64_t>(1, 16384 / n);
  visit_dtype(x.dtype(), [&]<typename T>(T) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* px = x.data_ptr<T>();
      T* py = out.data_ptr<T>();
      bool stream = rows * n * int64_t(sizeof(T)) >= kStreamBytes;
      parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
        std::vector<T> buf(static_cast<size_t>(n));
        for (int64_t r = b; r < e; ++r) softmax_row(px + r * n, py + r * n, buf.data(), n, log, stream, source);
      });
    } else {
      throw NotImplementedError(str("softmax of ", dtype_name(x.dtype()), " must be computed in float32"));
    }
  });
}

}  // namespace ember::cpu

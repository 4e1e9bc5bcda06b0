// tril/triu: each row copies its kept columns (one run) and zeroes the rest; contiguous rows use memcpy/memset.
#include "shape_utils_kernel.h"

#include <algorithm>
#include <cstring>

#include "ember/parallel.h"
#include "strided_loop.h"

namespace ember::cpu {

void triangle_kernel(const Tensor& dst, const Tensor& src, bool upper, int64_t diagonal) {
  int64_t rows = dst.size(1), cols = dst.size(2), n = dst.size(0) * rows;
  if (dst.numel() == 0) return;
  int64_t es = int64_t(dst.element_size());
  auto ds = dst.strides(), ss = src.strides();
  char* dbase = static_cast<char*>(dst.data_ptr());
  const char* sbase = static_cast<const char*>(src.data_ptr());
  bool rows_contiguous = (ds[2] == 1 || cols == 1) && (ss[2] == 1 || cols == 1);
  parallel_for(0, n, std::max<int64_t>(1, kParallelGrain / cols), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t b = r / rows, i = r % rows;
      char* d = dbase + (b * ds[0] + i * ds[1]) * es;
      const char* s = sbase + (b * ss[0] + i * ss[1]) * es;
      // kept columns: [lo, hi)
      int64_t lo = upper ? std::clamp<int64_t>(i + diagonal, 0, cols) : 0;
      int64_t hi = upper ? cols : std::clamp<int64_t>(i + diagonal + 1, 0, cols);
      if (rows_contiguous) {
        std::memset(d, 0, size_t(lo * es));
        if (d != s) std::memcpy(d + lo * es, s + lo * es, size_t((hi - lo) * es));
        std::memset(d + hi * es, 0, size_t((cols - hi) * es));
        continue;
      }
      for (int64_t j = 0; j < cols; ++j) {
        char* dj = d + j * ds[2] * es;
        if (j < lo || j >= hi) std::memset(dj, 0, size_t(es));
        else if (d != s) std::memcpy(dj, s + j * ss[2] * es, size_t(es));
      }
    }
  });
}

}  // namespace ember::cpu

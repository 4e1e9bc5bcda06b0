// The coordinates a dense tensor keeps as a sparse one: rows (a coordinate's dense elements) with a nonzero element,
// found in two parallel passes over the data (count per chunk, then write), in row-major order.
#include <algorithm>
#include <vector>

#include "ember/parallel.h"
#include "sparse_internal.h"

namespace ember::sparse_detail {

namespace {

template <typename T>
bool is_nonzero(T v) {
  if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T>) return v != 0;
  else return static_cast<float>(v) != 0.0f || static_cast<float>(v) != static_cast<float>(v);  // NaN is nonzero
}

template <typename T>
bool row_nonzero(const T* row, int64_t width) {
  for (int64_t e = 0; e < width; ++e) {
    if (is_nonzero(row[e])) return true;
  }
  return false;
}

}  // namespace

std::vector<int64_t> nonzero_rows(const Tensor& flat) {
  Tensor x = flat.contiguous();
  int64_t rows = x.size(0), width = rows == 0 ? 0 : x.numel() / rows;
  int64_t chunk = std::max<int64_t>(1, 65536 / std::max<int64_t>(width, 1));
  int64_t chunks = (rows + chunk - 1) / chunk;
  std::vector<int64_t> counts(size_t(chunks) + 1, 0);
  std::vector<int64_t> kept;
  visit_dtype(x.dtype(), [&]<typename T>(T) {
    const T* data = x.data_ptr<T>();
    auto each_chunk = [&](auto&& body) {
      parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) body(c, c * chunk, std::min(rows, (c + 1) * chunk));
      });
    };
    each_chunk([&](int64_t c, int64_t r0, int64_t r1) {
      int64_t n = 0;
      for (int64_t r = r0; r < r1; ++r) n += row_nonzero(data + r * width, width);
      counts[size_t(c) + 1] = n;
    });
    for (size_t c = 0; c < size_t(chunks); ++c) counts[c + 1] += counts[c];
    kept.resize(size_t(counts.back()));
    each_chunk([&](int64_t c, int64_t r0, int64_t r1) {
      int64_t* out = kept.data() + counts[size_t(c)];
      for (int64_t r = r0; r < r1; ++r) {
        if (row_nonzero(data + r * width, width)) *out++ = r;
      }
    });
  });
  return kept;
}

}  // namespace ember::sparse_detail

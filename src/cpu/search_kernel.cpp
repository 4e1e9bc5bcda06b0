// Scans and searches over ordered data: cumsum/cumprod, cummax/cummin, searchsorted, histc, and the runs of equal
// neighbours behind unique and unique_consecutive.
#include <algorithm>
#include <cmath>

#include "ember/parallel.h"
#include "../functors/order.h"
#include "compute_type.h"
#include "sort_kernel.h"
#include "strided_loop.h"

namespace ember::cpu {

namespace {

int64_t row_grain(int64_t n) { return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)); }

}  // namespace

// rows: int64, float32 or float64 (the op layer converts the narrower types, exactly).
void cum_extremum_kernel(bool is_max, const Tensor& rows, const Tensor& values, const Tensor& indices) {
  const int64_t R = rows.sizes()[0], n = rows.sizes()[1];
  functors::visit_scanned(rows.dtype(), [&]<typename T>(T) {
    using C = Compute<T>;
    const T* in = rows.data_ptr<T>();
    T* vals = values.data_ptr<T>();
    int64_t* inds = indices.data_ptr<int64_t>();
    parallel_for(0, R, row_grain(n), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const T* row = in + r * n;
        T best = row[0];
        int64_t at = 0;
        for (int64_t i = 0; i < n; ++i) {  // torch: a NaN always takes over; ties move to the later element
          C x = C(row[i]), m = C(best);
          if (is_nan(x) || (!is_nan(m) && (is_max ? x >= m : x <= m))) {
            best = row[i];
            at = i;
          }
          vals[r * n + i] = best;
          inds[r * n + i] = at;
        }
      }
    });
  });
}

void searchsorted_kernel(const Tensor& boundaries, const Tensor& values, const Tensor& out, bool right) {
  const int64_t R = values.sizes()[0], m = values.sizes()[1], n = boundaries.sizes()[1];
  const bool shared = boundaries.sizes()[0] == 1 && R != 1;
  visit_sortable(values.dtype(), [&]<typename T>(T) {
    using C = Compute<T>;
    const T* bnd = boundaries.data_ptr<T>();
    const T* val = values.data_ptr<T>();
    visit_dtype(out.dtype(), [&]<typename I>(I) {
      if constexpr (std::is_same_v<I, int32_t> || std::is_same_v<I, int64_t>) {
        I* o = out.data_ptr<I>();
        parallel_for(0, R * m, 4096, [&](int64_t b, int64_t e) {
          for (int64_t p = b; p < e; ++p) {
            o[p] = I(functors::insertion_point(bnd + (shared ? 0 : p / m) * n, n, C(val[p]), right));
          }
        });
      }
    });
  });
}

void scan_kernel(const Tensor& rows, const Tensor& out, bool product) {
  const int64_t R = rows.sizes()[0], n = rows.sizes()[1];
  visit_dtype(rows.dtype(), [&]<typename A>(A) {
    if constexpr (std::is_same_v<A, double> || std::is_same_v<A, float> || std::is_same_v<A, int64_t>) {
      const A* in = rows.data_ptr<A>();
      A* o = out.data_ptr<A>();
      parallel_for(0, R, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t b, int64_t e) {  // rows in parallel
        for (int64_t r = b; r < e; ++r) {
          A acc = o[r * n] = in[r * n];  // the first element as it is (a -0 stays -0)
          for (int64_t i = r * n + 1; i < (r + 1) * n; ++i) o[i] = acc = product ? acc * in[i] : acc + in[i];
        }
      });
    }
  });
}

void histc_kernel(const Tensor& x, const Tensor& out, double min, double max) {
  const int64_t n = x.numel(), bins = out.numel();
  visit_sortable(x.dtype(), [&]<typename T>(T) {
    if constexpr (std::is_floating_point_v<Compute<T>>) {
      using C = Compute<T>;
      auto round = [](C v) { return C(T(v)); };  // torch computes in the element type, rounding each step
      const T* in = x.data_ptr<T>();
      T* h = out.data_ptr<T>();
      const C lo = round(C(min)), hi = round(C(max));
      std::fill(h, h + bins, T(0));
      for (int64_t i = 0; i < n; ++i) {
        C v = C(in[i]);
        if (!(v >= lo && v <= hi)) continue;
        auto pos = static_cast<int64_t>(round(round(round(v - lo) * round(C(bins))) / round(hi - lo)));
        if (pos == bins) pos -= 1;
        h[pos] = T(C(h[pos]) + C(1));
      }
    }
  });
}

int64_t unique_runs_kernel(const Tensor& x, const Tensor& values, const Tensor& counts, const Tensor& group) {
  const int64_t n = x.numel();
  int64_t runs = 0;
  visit_sortable(x.dtype(), [&]<typename T>(T) {
    using C = Compute<T>;
    const T* in = x.data_ptr<T>();
    T* vals = values.data_ptr<T>();
    int64_t* cnt = counts.defined() ? counts.data_ptr<int64_t>() : nullptr;
    int64_t* grp = group.defined() ? group.data_ptr<int64_t>() : nullptr;
    int64_t start = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0 && C(in[i]) != C(in[i - 1])) {  // NaN != NaN: each NaN is a run of its own, as torch
        if (cnt) cnt[runs] = i - start;
        ++runs;
        start = i;
      }
      if (i == start) vals[runs] = in[i];
      if (grp) grp[i] = runs;
    }
    if (n > 0) {
      if (cnt) cnt[runs] = n - start;
      ++runs;
    }
  });
  return runs;
}

}  // namespace ember::cpu

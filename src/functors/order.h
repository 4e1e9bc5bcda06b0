// Element rules of the scatter and search kernels, written once for every backend.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../dispatch/kernels.h"
#include "compute.h"
#include "ember/host_device.h"

namespace ember::functors {

// Calls fn(T{}) for the dtypes cummax/cummin scan in: int64, float32 and float64 (the op layer converts the narrower
// types to them, exactly).
template <typename Fn>
void visit_scanned(ScalarType t, Fn&& fn) {
  visit_dtype(t, [&]<typename T>(T) {
    if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, float> || std::is_same_v<T, double>) fn(T{});
    else throw Error("cummax/cummin kernels scan int64, float32 or float64 (the op layer converts the others)");
  });
}

// d (op)= v as torch's scatter kernels: rounded to T at each step; bool adds as `or` and multiplies as `and`; a NaN
// in v wins a max or min (torch: isnan(v) ? v : max(d, v)), so a NaN in d stays too.
template <ScatterReduce Op, typename T>
EMBER_HOST_DEVICE inline void scatter_combine(T& d, T v) {
  using C = Compute<T>;
  if constexpr (Op == ScatterReduce::None) {
    d = v;
  } else if constexpr (std::is_same_v<T, bool>) {
    d = Op == ScatterReduce::Prod || Op == ScatterReduce::Min ? d && v : d || v;
  } else if constexpr (Op == ScatterReduce::Sum) {
    d = T(C(d) + C(v));
  } else if constexpr (Op == ScatterReduce::Prod) {
    d = T(C(d) * C(v));
  } else {
    C a = C(d), b = C(v);
    if (b != b || (Op == ScatterReduce::Max ? a < b : b < a)) d = v;
  }
}

// Where v goes in the sorted row[0, n): before equal elements, or after them when `right`; torch's comparisons, so
// NaNs land where torch puts them.
template <typename T>
EMBER_HOST_DEVICE inline int64_t insertion_point(const T* row, int64_t n, Compute<T> v, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + ((hi - lo) >> 1);
    Compute<T> x = Compute<T>(row[mid]);
    if (right ? !(x > v) : !(x >= v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

}  // namespace ember::functors

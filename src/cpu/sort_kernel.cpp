// Sorting and selection along rows. sort maps each element to an unsigned key whose order is torch's (NaN above
// everything, -0 equal to 0), then sorts (key, index) pairs: LSD radix by bytes (stable) for long rows, a
// comparison sort for short ones (std::sort when not stable, as torch, so equal elements land where torch's do). topk, kthvalue, median and mode follow torch's CPU algorithms step for step, so ties come
// out at torch's indices.
#include "sort_kernel.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "ember/parallel.h"
#include "compute_type.h"
#include "strided_loop.h"

namespace ember::cpu {

namespace {

// ---- order-preserving keys

template <typename T>
using KeyOf = std::conditional_t<sizeof(T) == 1, uint8_t,
              std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

template <typename T>
KeyOf<T> to_key(T v) {
  using K = KeyOf<T>;
  constexpr K sign = K(K(1) << (8 * sizeof(K) - 1));
  if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    return K(v);
  } else if constexpr (std::is_integral_v<T>) {
    return K(K(v) ^ sign);
  } else {
    if (is_nan(Compute<T>(v))) return K(~K(0));  // every NaN one key, above +inf
    K bits = std::bit_cast<K>(v);
    if (K(bits & K(~sign)) == 0) bits = 0;  // -0 sorts as 0
    return (bits & sign) ? K(~bits) : K(bits | sign);
  }
}

template <typename T>
T from_key(KeyOf<T> k) {
  using K = KeyOf<T>;
  constexpr K sign = K(K(1) << (8 * sizeof(K) - 1));
  if constexpr (std::is_same_v<T, bool>) return k != 0;
  else if constexpr (std::is_unsigned_v<T>) return T(k);
  else if constexpr (std::is_integral_v<T>) return T(K(k ^ sign));
  else return std::bit_cast<T>((k & sign) ? K(k ^ sign) : K(~k));
}

// ---- stable sort of (key, index) pairs

constexpr int64_t kRadixFrom = 512;  // shorter rows: a comparison sort

// Stable LSD radix sort of keys[0, n) (and idx with them, when given) by bytes; a byte every key shares is
// skipped. Works in keys/tmp and idx/itmp; returns where the result ended (false: keys/idx, true: tmp/itmp).
// Long rows split into pieces sorted by the pool together: each piece counts its digits, offsets run digit by
// digit and piece by piece within a digit (so the pass stays stable), then each piece scatters its keys (a 1-D
// sort of 1M int64 ran on one thread: 24 ms, torch 19).
template <typename K>
bool radix_sort(K* keys, K* tmp, uint32_t* idx, uint32_t* itmp, int64_t n) {
  constexpr int B = sizeof(K);
  const int64_t pieces = n >= (int64_t(1) << 16) ? std::max(1, get_num_threads()) : 1;
  auto bounds = [&](int64_t p) { return std::pair{n * p / pieces, n * (p + 1) / pieces}; };
  std::vector<int64_t> count(size_t(pieces) * B * 256, 0);  // every byte's digits, per piece
  parallel_for(0, pieces, 1, [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) {
      int64_t* c = count.data() + p * B * 256;
      auto [lo, hi] = bounds(p);
      for (int64_t i = lo; i < hi; ++i) {
        K k = keys[i];
        for (int b = 0; b < B; ++b) ++c[b * 256 + ((k >> (8 * b)) & 0xff)];
      }
    }
  });
  auto shared_byte = [&](int b) {  // one digit holds every key
    for (int d = 0; d < 256; ++d) {
      int64_t total = 0;
      for (int64_t p = 0; p < pieces; ++p) total += count[size_t((p * B + b) * 256 + d)];
      if (total == n) return true;
      if (total != 0) return false;
    }
    return false;
  };
  std::vector<int64_t> offset(size_t(pieces) * 256);
  bool swapped = false, moved = false;
  for (int b = 0; b < B; ++b) {
    if (shared_byte(b)) continue;
    const int shift = 8 * b;
    if (moved && pieces > 1) {  // an earlier pass moved keys between pieces: count this byte afresh
      parallel_for(0, pieces, 1, [&](int64_t pb, int64_t pe) {
        for (int64_t p = pb; p < pe; ++p) {
          int64_t* c = count.data() + (p * B + b) * 256;
          std::fill(c, c + 256, 0);
          auto [lo, hi] = bounds(p);
          for (int64_t i = lo; i < hi; ++i) ++c[(keys[i] >> shift) & 0xff];
        }
      });
    }
    int64_t sum = 0;
    for (int d = 0; d < 256; ++d) {
      for (int64_t p = 0; p < pieces; ++p) {
        offset[size_t(p * 256 + d)] = sum;
        sum += count[size_t((p * B + b) * 256 + d)];
      }
    }
    parallel_for(0, pieces, 1, [&](int64_t pb, int64_t pe) {
      for (int64_t p = pb; p < pe; ++p) {
        int64_t* c = offset.data() + p * 256;
        auto [lo, hi] = bounds(p);
        if (idx) {
          for (int64_t i = lo; i < hi; ++i) {
            int64_t at = c[(keys[i] >> shift) & 0xff]++;
            tmp[at] = keys[i];
            itmp[at] = idx[i];
          }
        } else {
          for (int64_t i = lo; i < hi; ++i) tmp[c[(keys[i] >> shift) & 0xff]++] = keys[i];
        }
      }
    });
    if (idx) std::swap(idx, itmp);
    std::swap(keys, tmp);
    swapped = !swapped;
    moved = true;
  }
  return swapped;
}

template <typename T>
void sort_rows(const Tensor& rows, const Tensor& values, const Tensor& indices, bool descending, bool stable) {
  using K = KeyOf<T>;
  const int64_t R = rows.sizes()[0], n = rows.sizes()[1];
  const T* in = rows.data_ptr<T>();
  T* out = values.data_ptr<T>();
  int64_t* out_idx = indices.defined() ? indices.data_ptr<int64_t>() : nullptr;
  const bool radix = n >= kRadixFrom && n <= int64_t(std::numeric_limits<uint32_t>::max());
  parallel_for(0, R, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
    std::unique_ptr<K[]> keys(new K[size_t(n) * (radix ? 2 : 1)]);  // uninitialised: every slot is written first
    std::unique_ptr<uint32_t[]> idx32;
    std::vector<int64_t> idx64;
    for (int64_t r = b; r < e; ++r) {
      const T* row = in + r * n;
      for (int64_t i = 0; i < n; ++i) keys[size_t(i)] = descending ? K(~to_key(row[i])) : to_key(row[i]);
      if (radix) {
        const bool with_idx = out_idx != nullptr;
        if (with_idx) {
          if (!idx32) idx32.reset(new uint32_t[size_t(2 * n)]);
          std::iota(idx32.get(), idx32.get() + n, 0u);
        }
        bool in_tmp = radix_sort(keys.get(), keys.get() + n, with_idx ? idx32.get() : nullptr,
                                 with_idx ? idx32.get() + n : nullptr, n);
        const K* k = keys.get() + (in_tmp ? n : 0);
        const uint32_t* ix = with_idx ? idx32.get() + (in_tmp ? n : 0) : nullptr;
        if (with_idx) {
          for (int64_t i = 0; i < n; ++i) {
            out[r * n + i] = row[ix[i]];
            out_idx[r * n + i] = ix[i];
          }
        } else {
          for (int64_t i = 0; i < n; ++i) out[r * n + i] = from_key<T>(descending ? K(~k[i]) : k[i]);
        }
      } else {
        idx64.resize(size_t(n));
        std::iota(idx64.begin(), idx64.end(), int64_t(0));
        auto less = [&](int64_t x, int64_t y) { return keys[size_t(x)] < keys[size_t(y)]; };
        if (stable) std::stable_sort(idx64.begin(), idx64.end(), less);
        else std::sort(idx64.begin(), idx64.end(), less);  // torch's call: its order of equal elements
        for (int64_t i = 0; i < n; ++i) {
          out[r * n + i] = row[idx64[size_t(i)]];
          if (out_idx) out_idx[r * n + i] = idx64[size_t(i)];
        }
      }
    }
  });
}

// ---- topk

// Replaces the top of the heap [q, q + len) with v and restores the heap as libstdc++'s std::partial_sort does (the
// hole sinks to a leaf along the preferred children, then v rises), so the selection matches torch's.
template <typename E, typename Comp>
void replace_heap_top(E* q, int64_t len, E v, Comp comp) {
  int64_t hole = 0, child = 0;
  while (child < (len - 1) / 2) {
    child = 2 * (child + 1);
    if (comp(q[child], q[child - 1])) --child;
    q[hole] = q[child];
    hole = child;
  }
  if ((len & 1) == 0 && child == (len - 2) / 2) {
    child = 2 * (child + 1);
    q[hole] = q[child - 1];
    hole = child - 1;
  }
  for (int64_t parent = (hole - 1) / 2; hole > 0 && comp(q[parent], v); parent = (hole - 1) / 2) {
    q[hole] = q[parent];
    hole = parent;
  }
  q[hole] = v;
}

// Bit l set where lane l of a vector compare's mask is set.
template <typename Mask>
unsigned lane_bits(Mask m) {
#if defined(__AVX__)
  if constexpr (sizeof(Mask) == 32 && sizeof(m[0]) == 4) return unsigned(_mm256_movemask_ps((__m256)m));
  if constexpr (sizeof(Mask) == 32 && sizeof(m[0]) == 8) return unsigned(_mm256_movemask_pd((__m256d)m));
#endif
  unsigned bits = 0;
  for (size_t l = 0; l < sizeof(Mask) / sizeof(m[0]); ++l) bits |= unsigned(m[l] != 0) << l;
  return bits;
}

// One element offered to the heap: replaces its top when it beats it (comp as torch's partial_sort compares).
template <typename E, typename Comp>
void offer(std::vector<E>& q, E e, Comp comp) {
  if (comp(e, q[0])) replace_heap_top(q.data(), int64_t(q.size()), e, comp);
}

// Calls take(i) for each i in [from, n) whose element is above top() (below, unless Largest) or NaN, until take
// returns false; top() is read again after each take. Vector compares for float and double pick the lanes.
template <bool Largest, typename T, typename Top, typename Take>
void scan_beating(const T* row, int64_t from, int64_t n, Top top, Take take) {
  using C = Compute<T>;
  int64_t i = from;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using V = typename Vec32<T>::type;
    typedef V Unaligned __attribute__((aligned(sizeof(T))));  // loads straight from the row (memcpy went via the stack)
    using Mask = decltype(V{} < V{});
    constexpr int64_t L = sizeof(V) / sizeof(T), U = 4;  // U vectors a step; top() is read after takes only
    V t = V{} + top();
    for (; i + U * L <= n; i += U * L) {
      Mask m[U];
      for (int64_t j = 0; j < U; ++j) {
        V v = *reinterpret_cast<const Unaligned*>(row + i + j * L);
        m[j] = Largest ? ~(v <= t) : ~(v >= t);
      }
      if (!lane_bits(m[0] | m[1] | m[2] | m[3])) continue;
      for (int64_t j = 0; j < U; ++j) {  // a stale t admits more, never fewer
        for (unsigned bits = lane_bits(m[j]); bits; bits &= bits - 1) {
          if (!take(i + j * L + std::countr_zero(bits))) return;
        }
      }
      t = V{} + top();
    }
  }
  for (; i < n; ++i) {
    C v = C(row[i]), t = top();
    if ((Largest ? !(v <= t) : !(v >= t)) && !take(i)) return;
  }
}

// The k best of a row, sorted, as torch's partial_sort leaves them, in one pass: candidates beating a threshold
// collect in q, cut back to the k best whenever q fills (the k-th best becomes the threshold). false (q unspecified)
// when equal elements could meet in the result or at its edge: then only torch's own sequence of heap operations
// gives its order of ties.
// `start`, when set, is a first threshold guessed from the previous row (a guess admitting fewer than k ends the
// attempt); the call leaves one for the next row there.
template <bool Largest, typename T>
bool topk_buffered(const T* row, int64_t n, int64_t k, std::vector<std::pair<Compute<T>, int64_t>>& q,
                   std::optional<Compute<T>>& start) {
  using C = Compute<T>;
  using E = std::pair<C, int64_t>;
  // Without NaNs (a NaN ends the attempt) torch's comparator is a plain compare of values.
  auto better = [](const E& a, const E& b) { return Largest ? a.first > b.first : a.first < b.first; };
  auto cut = [&] {  // keeps the k best; false when one left out equals the k-th
    std::nth_element(q.begin(), q.begin() + k - 1, q.end(), better);
    const C kth = q[size_t(k - 1)].first;
    for (size_t j = size_t(k); j < q.size(); ++j) {
      if (q[j].first == kth) return false;
    }
    q.resize(size_t(k));
    return true;
  };
  const size_t cap = size_t(std::max<int64_t>(2 * k, 64));  // small: the threshold tightens often
  const int64_t first = start ? 0 : std::min<int64_t>(n, int64_t(cap));
  q.clear();
  for (int64_t i = 0; i < first; ++i) {
    if (is_nan(C(row[i]))) return false;
    q.push_back({C(row[i]), i});
  }
  if (!start && !cut()) return false;
  C threshold = start ? *start : q.back().first;
  start.reset();
  bool ok = true;
  scan_beating<Largest>(row, first, n, [&] { return threshold; }, [&](int64_t i) {
    q.push_back({C(row[i]), i});
    if (is_nan(q.back().first)) return ok = false;
    if (q.size() == cap) {
      ok = cut();
      threshold = q.back().first;  // the k-th best so far
    }
    return ok;
  });
  if (!ok || q.size() < size_t(k)) return false;
  // the next row starts from this row's ~1.5k-th best candidate: most rows then admit few more than k
  const size_t guess = std::min(q.size(), size_t(k + k / 2)) - 1;
  std::nth_element(q.begin(), q.begin() + int64_t(guess), q.end(), better);
  start = q[guess].first;
  // a skipped element could equal the k-th only if the k-th equals the last threshold
  if (!cut() || q.back().first == threshold) return false;
  std::sort(q.begin(), q.end(), better);
  for (int64_t j = 1; j < k; ++j) {
    if (q[size_t(j - 1)].first == q[size_t(j)].first) return false;
  }
  return true;
}

template <bool Largest, typename T, typename Comp>
void topk_row(const T* row, int64_t n, int64_t k, bool sorted, Comp comp, std::vector<std::pair<Compute<T>, int64_t>>& q,
              std::optional<Compute<T>>& start) {
  using C = Compute<T>;
  if (k * 64 <= n) {  // torch: std::partial_sort; a heap of the k best, its top the one to beat
    if (topk_buffered<Largest>(row, n, k, q, start)) return;  // no ties: the same k, the same order
    q.resize(size_t(k));
    for (int64_t i = 0; i < k; ++i) q[size_t(i)] = {C(row[i]), i};
    std::make_heap(q.begin(), q.end(), comp);
    scan_beating<Largest>(row, k, n, [&] { return q[0].first; },
                          [&](int64_t i) { return offer(q, std::pair<C, int64_t>{C(row[i]), i}, comp), true; });
    std::sort_heap(q.begin(), q.end(), comp);
  } else {  // torch: std::nth_element, then the first k - 1 sorted
    q.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) q[size_t(i)] = {C(row[i]), i};
    std::nth_element(q.begin(), q.begin() + k - 1, q.end(), comp);
    if (sorted) std::sort(q.begin(), q.begin() + k - 1, comp);
  }
}

// ---- kthvalue: torch's quickselect (Sedgewick's partition, median of three), NaN above everything

template <typename T>
void quick_select(T* v, int64_t* idx, int64_t n, int64_t k) {
  using C = Compute<T>;
  auto gt = [](T a, T b) { return (is_nan(C(a)) && !is_nan(C(b))) || C(a) > C(b); };
  auto swap = [&](int64_t i, int64_t j) {
    std::swap(v[i], v[j]);
    std::swap(idx[i], idx[j]);
  };
  int64_t lo = 0, hi = n - 1;
  while (hi > lo) {
    if (hi == lo + 1) {
      if (gt(v[lo], v[hi])) swap(lo, hi);
      return;
    }
    int64_t mid = (lo + hi) >> 1;
    swap(mid, lo + 1);
    if (gt(v[lo + 1], v[hi])) swap(lo + 1, hi);
    if (gt(v[lo], v[hi])) swap(lo, hi);
    if (gt(v[lo + 1], v[lo])) swap(lo + 1, lo);
    int64_t i = lo + 1, j = hi;
    const T pivot = v[lo];
    while (true) {
      do ++i; while (gt(pivot, v[i]));
      do --j; while (gt(v[j], pivot));
      if (j < i) break;
      swap(i, j);
    }
    swap(lo, j);
    if (j <= k) lo = i;
    if (j >= k) hi = j - 1;
  }
}

template <typename T>
void row_stat_rows(RowStat stat, const Tensor& rows, int64_t k, const Tensor& values, const Tensor& indices) {
  using C = Compute<T>;
  const int64_t R = rows.sizes()[0], n = rows.sizes()[1];
  const T* in = rows.data_ptr<T>();
  T* vals = values.data_ptr<T>();
  int64_t* inds = indices.data_ptr<int64_t>();
  parallel_for(0, R, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
    std::vector<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>> tmp;  // no vector<bool>
    std::vector<int64_t> idx;
    std::vector<std::pair<C, int64_t>> pairs;
    for (int64_t r = b; r < e; ++r) {
      const T* row = in + r * n;
      int64_t at = 0;
      if (stat == RowStat::Kth) {
        tmp.assign(row, row + n);
        idx.resize(size_t(n));
        std::iota(idx.begin(), idx.end(), int64_t(0));
        quick_select(tmp.data(), idx.data(), n, k - 1);
        at = idx[size_t(k - 1)];
      } else if (stat == RowStat::Mode) {  // torch: sort (value, index) pairs, the last index of the longest run
        pairs.resize(size_t(n));
        for (int64_t i = 0; i < n; ++i) pairs[size_t(i)] = {C(row[i]), i};
        std::sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        int64_t run = 0, best = 0;
        for (int64_t i = 0; i < n; ++i) {
          ++run;
          if (i == n - 1 || pairs[size_t(i)].first != pairs[size_t(i + 1)].first) {
            if (run > best) {
              best = run;
              at = pairs[size_t(i)].second;
            }
            run = 0;
          }
        }
      } else {
        const T* nan = std::find_if(row, row + n, [](T v) { return is_nan(C(v)); });
        if (stat == RowStat::Median && nan != row + n) {
          at = nan - row;
        } else {  // torch: nth_element over indices, ties by index (a NaN above every number for nanmedian)
          int64_t nans = stat == RowStat::NanMedian ? std::count_if(row, row + n, [](T v) { return is_nan(C(v)); }) : 0;
          idx.resize(size_t(n));
          std::iota(idx.begin(), idx.end(), int64_t(0));
          auto nth = idx.begin() + (n - nans - 1) / 2;
          std::nth_element(idx.begin(), nth, idx.end(), [row](int64_t i, int64_t j) {
            C a = C(row[i]), c = C(row[j]);
            return a < c || (a == c && i < j) || (is_nan(c) && !is_nan(a));
          });
          at = *nth;
        }
      }
      vals[r] = row[at];
      inds[r] = at;
    }
  });
}

}  // namespace

void sort_kernel(const Tensor& rows, const Tensor& values, const Tensor& indices, bool descending, bool stable) {
  visit_sortable(rows.dtype(), [&]<typename T>(T) { sort_rows<T>(rows, values, indices, descending, stable); });
}

void topk_kernel(const Tensor& rows, int64_t k, bool largest, bool sorted, const Tensor& values, const Tensor& indices) {
  const int64_t R = rows.sizes()[0], n = rows.sizes()[1];
  if (k == 0) return;
  visit_sortable(rows.dtype(), [&]<typename T>(T) {
    using E = std::pair<Compute<T>, int64_t>;
    const T* in = rows.data_ptr<T>();
    T* vals = values.data_ptr<T>();
    int64_t* inds = indices.data_ptr<int64_t>();
    parallel_for(0, R, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
      std::vector<E> q;
      std::optional<Compute<T>> start;  // a threshold handed from row to row
      for (int64_t r = b; r < e; ++r) {
        if (largest) {
          topk_row<true>(in + r * n, n, k, sorted, [](const E& x, const E& y) {
            return (is_nan(x.first) && !is_nan(y.first)) || x.first > y.first;
          }, q, start);
        } else {
          topk_row<false>(in + r * n, n, k, sorted, [](const E& x, const E& y) {
            return (!is_nan(x.first) && is_nan(y.first)) || x.first < y.first;
          }, q, start);
        }
        for (int64_t j = 0; j < k; ++j) {
          vals[r * k + j] = in[r * n + q[size_t(j)].second];
          inds[r * k + j] = q[size_t(j)].second;
        }
      }
    });
  });
}

void row_stat_kernel(RowStat stat, const Tensor& rows, int64_t k, const Tensor& values, const Tensor& indices) {
  visit_sortable(rows.dtype(), [&]<typename T>(T) { row_stat_rows<T>(stat, rows, k, values, indices); });
}

}  // namespace ember::cpu

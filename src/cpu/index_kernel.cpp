#include "index_kernel.h"

#include <cstring>

#include "compute_type.h"
#include "ember/parallel.h"
#include "strided_loop.h"

namespace ember::cpu {

namespace {

// Calls fn(j, src_element_offset, core_element_index) over every (j, r) pair, r in row-major order.
template <typename Fn>
void for_each_pair(int64_t base_offset, IntArrayRef rest_sizes, IntArrayRef rest_strides, const Tensor& offsets, Fn fn) {
  const int64_t* off = offsets.data_ptr<int64_t>();
  int64_t rest = 1;
  for (int64_t s : rest_sizes) rest *= s;
  DimVector index(rest_sizes.size(), 0);
  for (int64_t j = 0; j < offsets.numel(); ++j) {
    std::fill(index.begin(), index.end(), 0);
    int64_t at = 0;
    for (int64_t r = 0; r < rest; ++r) {
      fn(base_offset + off[j] + at, j * rest + r);
      for (size_t k = index.size(); k-- > 0;) {  // advance the rest index (row-major) and its offset
        at += rest_strides[k];
        if (++index[k] < rest_sizes[k]) break;
        at -= rest_strides[k] * rest_sizes[k];
        index[k] = 0;
      }
    }
  }
}

}  // namespace

void index_gather(const Tensor& src, int64_t base_offset, IntArrayRef rest_sizes, IntArrayRef rest_strides,
                  const Tensor& offsets, const Tensor& core) {
  Unlocked unlocked(core.numel() > kUnlockElements);
  int64_t item = int64_t(src.element_size());
  const char* from = static_cast<const char*>(src.storage().data()) + base_offset * item;
  char* to = static_cast<char*>(core.data_ptr());
  const int64_t* off = offsets.data_ptr<int64_t>();
  if (is_contiguous_run(rest_sizes, rest_strides)) {  // one block per index: rows, or single elements
    int64_t block = item;
    for (int64_t s : rest_sizes) block *= s;
    int64_t grain = std::max<int64_t>(1, kParallelGrain * item / block);
    // Blocks of 1, 2, 4 or 8 bytes: typed loads, not memcpy calls. The offsets count elements,
    // which may be narrower than the block (a row of two int8s is one uint16 load at a byte offset).
    auto gather_blocks = [&]<typename U>(U) {
      parallel_for(0, offsets.numel(), grain, [&](int64_t b, int64_t e) {
        U* t = reinterpret_cast<U*>(to);
        if (item == int64_t(sizeof(U))) {
          const U* f = reinterpret_cast<const U*>(from);
          for (int64_t j = b; j < e; ++j) t[j] = f[off[j]];
          return;
        }
        for (int64_t j = b; j < e; ++j) std::memcpy(t + j, from + off[j] * item, sizeof(U));
      });
    };
    switch (block) {
      case 1: return gather_blocks(uint8_t{});
      case 2: return gather_blocks(uint16_t{});
      case 4: return gather_blocks(uint32_t{});
      case 8: return gather_blocks(uint64_t{});
      default:
        parallel_for(0, offsets.numel(), grain, [&](int64_t b, int64_t e) {
          for (int64_t j = b; j < e; ++j) std::memcpy(to + j * block, from + off[j] * item, size_t(block));
        });
    }
    return;
  }
  for_each_pair(base_offset, rest_sizes, rest_strides, offsets, [&](int64_t s, int64_t c) {
    std::memcpy(to + c * item, static_cast<const char*>(src.storage().data()) + s * item, size_t(item));
  });
}

void index_scatter(const Tensor& dst, int64_t base_offset, IntArrayRef rest_sizes, IntArrayRef rest_strides,
                   const Tensor& offsets, const Tensor& core, bool accumulate) {
  const int64_t* off = offsets.data_ptr<int64_t>();
  bool contiguous = is_contiguous_run(rest_sizes, rest_strides);
  int64_t rest = 1;
  for (int64_t s : rest_sizes) rest *= s;
  Unlocked unlocked(core.numel() > kUnlockElements);
  // Sequential on purpose: repeated indices must accumulate (or, without accumulate, the last wins).
  visit_dtype(dst.dtype(), [&]<typename T>(T) {
    T* to = static_cast<T*>(dst.storage().data()) + base_offset;
    const T* from = core.data_ptr<T>();
    auto put = [&](T& d, const T& v) {
      if (!accumulate) d = v;
      else if constexpr (std::is_same_v<T, bool>) d = d || v;
      else d = T(Compute<T>(d) + Compute<T>(v));
    };
    if (contiguous) {  // one block of `rest` elements per index
      for (int64_t j = 0; j < offsets.numel(); ++j) {
        T* block = to + off[j];
        const T* src = from + j * rest;
        for (int64_t r = 0; r < rest; ++r) put(block[r], src[r]);
      }
      return;
    }
    for_each_pair(0, rest_sizes, rest_strides, offsets, [&](int64_t d, int64_t c) { put(to[d], from[c]); });
  });
}

}  // namespace ember::cpu

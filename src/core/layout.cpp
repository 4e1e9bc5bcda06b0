#include "ember/layout.h"
#include "ember/safe_size.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace ember {

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = n; i-- > 0;) {  // from the last dim, so errors name the one torch names
    int64_t offset = int64_t(n) - 1 - int64_t(i);
    int64_t da = int64_t(a.size()) - 1 - offset, db = int64_t(b.size()) - 1 - offset;
    int64_t sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
    EMBER_CHECK(sa == sb || sa == 1 || sb == 1, Error, "The size of tensor a (", sa,
                ") must match the size of tensor b (", sb, ") at non-singleton dimension ", i);
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  size_t n = sizes.size();
  if (n == 1) return sizes[0] < 2 || strides[0] == 1;
  DimVector perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t require = 1;
  for (int64_t d : perm) {
    if (sizes[d] < 2) return true;
    if (strides[d] != require) return false;
    require *= sizes[d];
  }
  return true;
}

namespace {
// Channels-last dims, innermost first: C, then the spatial dims from the last, then N.
std::span<const int64_t> channels_last_order(size_t ndim) {
  static constexpr int64_t order4[] = {1, 3, 2, 0}, order5[] = {1, 4, 3, 2, 0};
  if (ndim == 4) return order4;
  if (ndim == 5) return order5;
  return {};
}
}  // namespace

bool is_channels_last_contiguous(IntArrayRef sizes, IntArrayRef strides) {
  auto order = channels_last_order(sizes.size());
  if (order.empty()) return false;
  int64_t expected = 1;
  for (int64_t d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

bool is_channels_last_like(IntArrayRef sizes, IntArrayRef strides) {
  // N111 with N > 1 (every other dim of size 1): torch's suggested format is contiguous whatever the strides
  if (sizes.size() > 1 && sizes[0] > 1 && std::all_of(sizes.begin() + 1, sizes.end(), [](int64_t s) { return s == 1; })) {
    return false;
  }
  return is_channels_last_strides(sizes, strides);
}

bool is_channels_last_strides(IntArrayRef sizes, IntArrayRef strides) {
  auto order = channels_last_order(sizes.size());
  if (order.empty() || strides[1] == 0) return false;
  int64_t min = 0;
  for (int64_t d : order) {
    if (sizes[d] == 0 || strides[d] < min) return false;
    if (d == 0 && min == strides[1]) return false;  // N111-like ambiguity: torch falls back to contiguous
    min = sizes[d] > 1 ? strides[d] * sizes[d] : strides[d];
  }
  return true;
}

DimVector channels_last_strides(IntArrayRef sizes) {
  DimVector out(sizes.size());
  int64_t cur = 1;
  for (int64_t d : channels_last_order(sizes.size())) {
    out[d] = cur;
    cur *= sizes[d];
  }
  return out;
}

Tensor broadcast_operand(const Tensor& t, IntArrayRef shape) {
  Tensor v = t.expand(shape);
  size_t lead = shape.size() - size_t(t.dim());
  if (lead == 0) return v;
  std::fill_n(v.impl()->strides.begin(), lead, 0);
  v.impl()->refresh_metadata();
  return v;
}

DimVector memory_format_strides(IntArrayRef sizes, MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous:
      return contiguous_strides(sizes);
    case MemoryFormat::ChannelsLast:
      EMBER_CHECK(sizes.size() == 4, Error, "required rank 4 tensor to use channels_last format");
      return channels_last_strides(sizes);
    case MemoryFormat::ChannelsLast3d:
      EMBER_CHECK(sizes.size() == 5, Error, "required rank 5 tensor to use channels_last_3d format");
      return channels_last_strides(sizes);
    case MemoryFormat::Preserve:
      break;
  }
  throw Error("unsupported memory format Preserve");
}

DimVector infer_dense_strides(IntArrayRef sizes, std::span<const IntArrayRef> operand_strides) {
  int64_t n = int64_t(sizes.size());
  DimVector perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;  // innermost first
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (IntArrayRef strides : operand_strides) {
      int64_t s0 = strides[d0], s1 = strides[d1];
      if (s0 == 0 || s1 == 0) continue;  // broadcast: let the next operand decide
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (sizes[d0] > sizes[d1]) return 1;  // equal strides: the smaller dim goes inside
    }
    return 0;
  };
  for (int64_t i = 1; i < n; ++i) {  // stable insertion sort
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      int cmp = should_swap(perm[d0], perm[d1]);
      if (cmp > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (cmp < 0) {
        break;
      }
    }
  }
  DimVector out(static_cast<size_t>(n));
  int64_t cur = 1;
  for (int64_t i = 0; i < n; ++i) {
    out[perm[i]] = cur;
    if (sizes[perm[i]] > 1) cur *= sizes[perm[i]];
  }
  return out;
}

DimVector infer_dense_strides(IntArrayRef sizes, IntArrayRef strides) {
  return infer_dense_strides(sizes, std::span<const IntArrayRef>(&strides, 1));
}

DimVector elementwise_strides(IntArrayRef shape, std::span<const Tensor> operands, bool same_shape) {
  if (same_shape && !operands.empty()) {  // torch's fast setups
    IntArrayRef first = operands[0].strides();
    bool contiguous = true, channels_last = true, one_dense_layout = true;
    for (const Tensor& t : operands) {
      contiguous &= t.is_contiguous();
      channels_last &= is_channels_last_contiguous(shape, t.strides());
      one_dense_layout &= std::equal(first.begin(), first.end(), t.strides().begin(), t.strides().end());
    }
    if (contiguous) return contiguous_strides(shape);
    if (channels_last) return channels_last_strides(shape);
    if (one_dense_layout && is_non_overlapping_and_dense(shape, first)) return DimVector(first);
  }
  std::vector<IntArrayRef> strides;
  for (const Tensor& t : operands) strides.push_back(t.strides());
  return infer_dense_strides(shape, strides);
}

Overlap internal_overlap(const Tensor& t) {
  if (t.has_sparse_layout()) return Overlap::None;  // its zero strides lay out no elements
  if (t.is_contiguous() || is_non_overlapping_and_dense(t.sizes(), t.strides())) return Overlap::None;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.strides()[d] == 0 && t.sizes()[d] > 1) return Overlap::Full;
  }
  return Overlap::TooHard;
}

Overlap overlap(const Tensor& a, const Tensor& b) {
  if (a.has_sparse_layout() || b.has_sparse_layout()) return Overlap::None;  // no elements of their own
  if (!a.storage().is_alias_of(b.storage()) || a.numel() == 0 || b.numel() == 0) return Overlap::None;
  bool dense_a = a.is_contiguous() || is_non_overlapping_and_dense(a.sizes(), a.strides());
  bool dense_b = b.is_contiguous() || is_non_overlapping_and_dense(b.sizes(), b.strides());
  if (!dense_a || !dense_b) return Overlap::TooHard;
  auto* a0 = static_cast<char*>(a.data_ptr());
  auto* b0 = static_cast<char*>(b.data_ptr());
  auto* a1 = a0 + a.nbytes();
  auto* b1 = b0 + b.nbytes();
  if (a0 == b0 && a1 == b1 && std::equal(a.strides().begin(), a.strides().end(), b.strides().begin(), b.strides().end())) {
    return Overlap::Full;
  }
  return (a0 < b1 && b0 < a1) ? Overlap::Partial : Overlap::None;
}

void check_strides_nonnegative(IntArrayRef strides) {
  for (int64_t stride : strides) {
    EMBER_CHECK(stride >= 0, Error, "as_strided: Negative strides are not supported at the moment, got strides: ",
                int_list(strides));
  }
}

void check_no_internal_overlap(const Tensor& t) {
  EMBER_CHECK(internal_overlap(t) != Overlap::Full, Error,
              "unsupported operation: more than one element of the written-to tensor refers to a single "
              "memory location. Please clone() the tensor before performing the operation.");
}

void check_no_partial_overlap(const Tensor& out, const Tensor& input) {
  EMBER_CHECK(overlap(out, input) != Overlap::Partial, Error,
              "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
              "single memory location. Please clone() the tensor before performing the operation.");
}

}  // namespace ember

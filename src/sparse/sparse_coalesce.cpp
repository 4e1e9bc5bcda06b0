// Coalescing (sorted, unique coordinates with duplicates summed), to_dense, and looking values up by coordinate.
#include <algorithm>
#include <numeric>
#include <vector>

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/scatter.h"
#include "sparse_internal.h"

namespace ember {

namespace {

// A stable LSD radix sort of `order` by `keys` (both permuted), over the low `bits` bits, 11 at a time.
void radix_sort(std::vector<uint64_t>& keys, std::vector<int64_t>& order, int bits) {
  constexpr int kDigit = 11;
  constexpr size_t kBuckets = size_t(1) << kDigit;
  std::vector<uint64_t> keys2(keys.size());
  std::vector<int64_t> order2(order.size());
  std::vector<size_t> start(kBuckets + 1);
  for (int shift = 0; shift < bits; shift += kDigit) {
    std::fill(start.begin(), start.end(), 0);
    for (uint64_t k : keys) ++start[((k >> shift) & (kBuckets - 1)) + 1];
    for (size_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
    for (size_t i = 0; i < keys.size(); ++i) {
      size_t to = start[(keys[i] >> shift) & (kBuckets - 1)]++;
      keys2[to] = keys[i];
      order2[to] = order[i];
    }
    keys.swap(keys2);
    order.swap(order2);
  }
}

// Entry order by coordinate; stable, so duplicates are summed in the order they were given. The flattened
// (row-major) coordinates are radix-sorted when the sparse sizes multiply within 64 bits; otherwise a comparison
// sort runs, lexicographic over the sparse dims.
std::vector<int64_t> sorted_order(const Tensor& host_indices, IntArrayRef sizes) {
  int64_t sparse_dim = host_indices.size(0), nnz = host_indices.size(1);
  const int64_t* p = host_indices.data_ptr<int64_t>();
  std::vector<int64_t> order(static_cast<size_t>(nnz));
  std::iota(order.begin(), order.end(), 0);
  uint64_t span = 1;
  bool fits = true;
  for (int64_t d = 0; d < sparse_dim && fits; ++d) {
    fits = !__builtin_mul_overflow(span, uint64_t(sizes[size_t(d)]), &span);
  }
  if (fits) {
    std::vector<uint64_t> keys(static_cast<size_t>(nnz), 0);
    for (int64_t d = 0; d < sparse_dim; ++d) {
      const uint64_t size = uint64_t(sizes[size_t(d)]);
      const int64_t* row = p + d * nnz;
      for (size_t k = 0; k < keys.size(); ++k) keys[k] = keys[k] * size + uint64_t(row[k]);
    }
    int bits = span <= 1 ? 0 : 64 - __builtin_clzll(span - 1);
    if (!std::is_sorted(keys.begin(), keys.end())) radix_sort(keys, order, bits);
    return order;
  }
  auto less = [&](int64_t a, int64_t b) {
    for (int64_t d = 0; d < sparse_dim; ++d) {
      if (p[d * nnz + a] != p[d * nnz + b]) return p[d * nnz + a] < p[d * nnz + b];
    }
    return false;
  };
  if (!std::is_sorted(order.begin(), order.end(), less)) std::stable_sort(order.begin(), order.end(), less);
  return order;
}

bool same_coordinate(const int64_t* p, int64_t sparse_dim, int64_t nnz, int64_t a, int64_t b) {
  for (int64_t d = 0; d < sparse_dim; ++d) {
    if (p[d * nnz + a] != p[d * nnz + b]) return false;
  }
  return true;
}

// out row s = the sum of the value rows order[starts[s]] .. order[starts[s + 1] - 1], in that order.
void sum_segments(const Tensor& values, const std::vector<int64_t>& order, const std::vector<int64_t>& starts,
                  Tensor& out) {
  int64_t row = values.size(0) == 0 ? 0 : values.numel() / values.size(0);
  visit_dtype(values.dtype(), [&]<typename T>(T) {
    const T* src = values.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    for (size_t s = 0; s + 1 < starts.size(); ++s) {
      T* o = dst + int64_t(s) * row;
      const T* first = src + order[size_t(starts[s])] * row;
      for (int64_t e = 0; e < row; ++e) o[e] = first[e];
      for (int64_t k = starts[s] + 1; k < starts[s + 1]; ++k) {
        const T* v = src + order[size_t(k)] * row;
        for (int64_t e = 0; e < row; ++e) o[e] = sparse_detail::add_elements(o[e], v[e]);
      }
    }
  });
}

}  // namespace

Tensor coalesce(const Tensor& t) {
  const SparseParts& p = sparse_parts(t, "coalesce");
  if (p.layout != Layout::SparseCoo || p.coalesced) return t;
  Tensor result = autograd::untracked([&] {
    Tensor host = p.indices.contiguous();
    int64_t sparse_dim = host.size(0), nnz = host.size(1);
    std::vector<int64_t> order = sorted_order(host, t.sizes());
    std::vector<int64_t> starts;
    const int64_t* ip = host.data_ptr<int64_t>();
    for (int64_t k = 0; k < nnz; ++k) {
      if (k == 0 || !same_coordinate(ip, sparse_dim, nnz, order[size_t(k)], order[size_t(k - 1)])) starts.push_back(k);
    }
    starts.push_back(nnz);
    std::vector<int64_t> firsts(starts.size() - 1);
    for (size_t s = 0; s + 1 < starts.size(); ++s) firsts[s] = order[size_t(starts[s])];
    Tensor first = sparse_detail::int64_tensor(firsts);
    DimVector value_sizes(p.values.sizes());
    value_sizes[0] = int64_t(firsts.size());
    Tensor values = empty(value_sizes, p.values.options());
    sum_segments(p.values.contiguous(), order, starts, values);
    return sparse_detail::make_coo(host.index_select(1, first), values, DimVector(t.sizes()), true);
  });
  if (autograd::needs_grad({&t})) sparse_detail::record_coalesce(result, t);
  return result;
}

namespace sparse_detail {

Tensor linear_positions(const Tensor& t) {
  const SparseParts& p = *t.impl()->sparse;
  int64_t sparse_dim = p.indices.size(0), nnz = p.indices.size(1);
  std::vector<int64_t> strides(static_cast<size_t>(sparse_dim));
  int64_t step = 1;
  for (int64_t d = sparse_dim - 1; d >= 0; --d) {
    strides[size_t(d)] = step;
    step *= t.size(d);
  }
  if (sparse_dim == 0) return zeros({nnz}, TensorOptions(kInt64));
  return sum(mul(p.indices, int64_tensor(strides).unsqueeze(1)), {0});
}

// Each entry of `mask` looked up in coalesced `grad` (binary search over its sorted coordinates).
Tensor values_at(const Tensor& grad_in, const Tensor& mask) {
  return autograd::untracked([&] {
    IntArrayRef dense = sparse_detail::tail(mask.sizes(), mask.sparse_dim());
    DimVector rows = concat({mask._nnz()}, dense);
    if (!grad_in.has_sparse_layout()) {
      int64_t coordinates = 1;
      for (int64_t d = 0; d < mask.sparse_dim(); ++d) coordinates *= mask.size(d);
      return grad_in.reshape(concat({coordinates}, dense)).index_select(0, linear_positions(mask)).reshape(rows);
    }
    Tensor grad = coalesce(grad_in.is_sparse_csr() ? csr_to_coo(grad_in) : grad_in);
    const SparseParts& g = *grad.impl()->sparse;
    Tensor gi = g.indices.contiguous(), mi = mask.impl()->sparse->indices.contiguous();
    int64_t sparse_dim = gi.size(0), gn = gi.size(1), mn = mi.size(1);
    const int64_t* gp = gi.data_ptr<int64_t>();
    const int64_t* mp = mi.data_ptr<int64_t>();
    std::vector<int64_t> targets, sources;
    std::vector<int64_t> order(static_cast<size_t>(gn));
    std::iota(order.begin(), order.end(), 0);
    for (int64_t k = 0; k < mn; ++k) {
      auto below = [&](int64_t e, int64_t) {  // grad entry e sorts before mask entry k
        for (int64_t d = 0; d < sparse_dim; ++d) {
          if (gp[d * gn + e] != mp[d * mn + k]) return gp[d * gn + e] < mp[d * mn + k];
        }
        return false;
      };
      auto it = std::lower_bound(order.begin(), order.end(), int64_t(0), below);
      if (it == order.end()) continue;
      bool equal = true;
      for (int64_t d = 0; d < sparse_dim && equal; ++d) equal = gp[d * gn + *it] == mp[d * mn + k];
      if (equal) {
        targets.push_back(k);
        sources.push_back(*it);
      }
    }
    Tensor out = zeros(rows, g.values.options());
    return out.index_copy(0, int64_tensor(targets), g.values.index_select(0, int64_tensor(sources)));
  });
}

}  // namespace sparse_detail

Tensor sparse_to_dense(const Tensor& t, std::optional<ScalarType> dtype) {
  sparse_parts(t, "to_dense");
  Tensor result = autograd::untracked([&] {
    Tensor coo = coalesce(t.is_sparse_csr() ? sparse_detail::csr_to_coo(t) : t);
    const SparseParts& p = *coo.impl()->sparse;
    Tensor out = zeros(t.sizes(), TensorOptions(dtype.value_or(t.dtype())).device(t.device()));
    DimVector flat = sparse_detail::concat({-1}, sparse_detail::tail(t.sizes(), coo.sparse_dim()));
    Tensor values = dtype ? p.values.to(*dtype) : p.values;
    if (out.numel() > 0) out.view(flat).index_copy_(0, sparse_detail::linear_positions(coo), values);
    return out;
  });
  if (autograd::needs_grad({&t})) sparse_detail::record_to_dense(result, t);
  return result;
}

Tensor sparse_mask(const Tensor& self, const Tensor& mask_in) {
  if (!mask_in.has_sparse_layout()) throw_sparse_unsupported(self, "sparse_mask");
  EMBER_CHECK(std::ranges::equal(self.sizes(), mask_in.sizes()), Error, "sparse_mask(): operands have incompatible "
              "sizes; self has size ", self.sizes(), " but mask has size ", mask_in.sizes());
  Tensor mask = mask_in.is_sparse_csr() ? sparse_detail::csr_to_coo(mask_in) : mask_in;
  Tensor r = autograd::untracked(
      [&] { return sparse_detail::with_values(mask, sparse_detail::values_at(self, mask)); });
  if (mask_in.is_sparse_csr()) r = sparse_detail::coo_to_csr(r);
  if (autograd::needs_grad({&self})) sparse_detail::record_sparse_mask(r, self, mask);
  return r;
}

}  // namespace ember

// select, index_select and unsqueeze of sparse COO tensors: on a sparse dim they pick or add coordinates, on a dense
// dim they act on the values.
#include <vector>

#include "ember/creation.h"
#include "ember/ops.h"
#include "sparse_internal.h"

namespace ember {

namespace {

// The entries whose coordinate along sparse dim `dim` is index[j], for each j in turn (torch's order); `slot`
// gets j for each.
std::vector<int64_t> entries_at(const Tensor& t, int64_t dim, const std::vector<int64_t>& index,
                                std::vector<int64_t>& slot) {
  Tensor host = t.impl()->sparse->indices.contiguous();
  int64_t nnz = host.size(1);
  const int64_t* row = host.data_ptr<int64_t>() + dim * nnz;
  std::vector<int64_t> picked;
  for (size_t j = 0; j < index.size(); ++j) {
    for (int64_t k = 0; k < nnz; ++k) {
      if (row[k] == index[j]) { picked.push_back(k); slot.push_back(int64_t(j)); }
    }
  }
  return picked;
}

// The sparse result of picking `entries` of t, its coordinate along `dim` replaced by `slot` (or dropped when
// `slot` is null), sized `sizes`; its values' gradient leads back to t through `node`.
Tensor picked(const Tensor& t, int64_t dim, const std::vector<int64_t>& entries, const std::vector<int64_t>* slot,
              DimVector sizes, const char* node) {
  Tensor at = sparse_detail::int64_tensor(entries);
  Tensor values = sparse_detail::values_alias(t).index_select(0, at);
  Tensor r = autograd::untracked([&] {
    Tensor indices = t.impl()->sparse->indices.index_select(1, at);
    if (slot) {
      indices.select(0, dim).copy_(sparse_detail::int64_tensor(*slot));
    } else {
      std::vector<int64_t> keep;
      for (int64_t d = 0; d < indices.size(0); ++d) if (d != dim) keep.push_back(d);
      indices = indices.index_select(0, sparse_detail::int64_tensor(keep));
    }
    return sparse_detail::make_coo(indices, values.detach(), std::move(sizes), false);
  });
  if (autograd::needs_grad({&values})) sparse_detail::record_values_gradient(node, r, values);
  return r;
}

// A view-like op on the values (a dense dim), keeping t's coordinates.
Tensor on_values(const Tensor& t, const Tensor& values, DimVector sizes, const char* node) {
  Tensor r = autograd::untracked([&] {
    SparseParts parts = *t.impl()->sparse;
    parts.indices = parts.indices.clone();
    parts.values = values.detach();
    return sparse_detail::make_sparse(std::move(parts), std::move(sizes));
  });
  if (autograd::needs_grad({&values})) sparse_detail::record_values_gradient(node, r, values);
  return r;
}

void check_coo(const Tensor& t, const char* op) {
  EMBER_CHECK(t.is_sparse(), NotImplementedError, op, " of a sparse_csr tensor is not supported; to_sparse() converts "
              "it to COO");
}

}  // namespace

Tensor sparse_select(const Tensor& t, int64_t dim, int64_t index) {
  check_coo(t, "select");
  EMBER_CHECK(t.dim() > 0, IndexError, "select() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(dim, t.dim()), size = t.size(d);
  EMBER_CHECK(index >= -size && index < size, IndexError, "select(): index ", index, " out of range for tensor of size ",
              int_list(t.sizes()), " at dimension ", d);
  if (index < 0) index += size;
  DimVector sizes;
  for (int64_t k = 0; k < t.dim(); ++k) if (k != d) sizes.push_back(t.size(k));
  if (d >= t.sparse_dim()) {
    return on_values(t, sparse_detail::values_alias(t).select(d - t.sparse_dim() + 1, index), sizes,
                     "SelectBackward0");
  }
  std::vector<int64_t> slot;
  return picked(t, d, entries_at(t, d, {index}, slot), nullptr, sizes, "SelectBackward0");
}

Tensor sparse_index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  check_coo(t, "index_select");
  int64_t d = wrap_dim(dim, t.dim());
  Tensor host = index.to(kInt64).contiguous().reshape({-1});
  std::vector<int64_t> wanted(host.data_ptr<int64_t>(), host.data_ptr<int64_t>() + host.numel());
  for (int64_t& i : wanted) {
    EMBER_CHECK(i >= -t.size(d) && i < t.size(d), IndexError, "index out of range in self");
    if (i < 0) i += t.size(d);
  }
  DimVector sizes(t.sizes());
  sizes[size_t(d)] = int64_t(wanted.size());
  if (d >= t.sparse_dim()) {
    return on_values(t, sparse_detail::values_alias(t).index_select(d - t.sparse_dim() + 1, host), sizes,
                     "IndexSelectBackward0");
  }
  std::vector<int64_t> slot;
  std::vector<int64_t> entries = entries_at(t, d, wanted, slot);
  return picked(t, d, entries, &slot, sizes, "IndexSelectBackward0");
}

Tensor sparse_unsqueeze(const Tensor& t, int64_t dim) {
  check_coo(t, "unsqueeze");
  int64_t d = wrap_dim(dim, t.dim() + 1);
  DimVector sizes(t.sizes());
  sizes.insert(size_t(d), 1);
  Tensor values = sparse_detail::values_alias(t);
  if (d > t.sparse_dim()) return on_values(t, values.unsqueeze(d - t.sparse_dim() + 1), sizes, "UnsqueezeBackward0");
  Tensor r = autograd::untracked([&] {
    const Tensor& old = t.impl()->sparse->indices;
    Tensor indices = zeros({old.size(0) + 1, old.size(1)}, TensorOptions(kInt64));
    indices.narrow(0, 0, d).copy_(old.narrow(0, 0, d));
    indices.narrow(0, d + 1, old.size(0) - d).copy_(old.narrow(0, d, old.size(0) - d));
    return sparse_detail::make_coo(indices, values.detach(), sizes, t.is_coalesced());
  });
  if (autograd::needs_grad({&values})) sparse_detail::record_values_gradient("UnsqueezeBackward0", r, values);
  return r;
}

}  // namespace ember

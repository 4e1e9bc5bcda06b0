// select, index_select and unsqueeze of sparse COO tensors: on a sparse dim they pick or add coordinates, on a dense
// dim they act on the values. Their gradients reach the input as dense tensors (record_dense_gradient).
#include <vector>

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/scatter.h"
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

// The entries `entries` of t, their coordinate along `dim` replaced by `slot` (or dropped when `slot` is null).
Tensor picked(const Tensor& t, int64_t dim, const std::vector<int64_t>& entries, const std::vector<int64_t>* slot,
              DimVector sizes) {
  Tensor at = sparse_detail::int64_tensor(entries);
  Tensor indices = t.impl()->sparse->indices.index_select(1, at);
  if (slot) {
    indices.select(0, dim).copy_(sparse_detail::int64_tensor(*slot));
  } else {
    std::vector<int64_t> keep;
    for (int64_t d = 0; d < indices.size(0); ++d) if (d != dim) keep.push_back(d);
    indices = indices.index_select(0, sparse_detail::int64_tensor(keep));
  }
  return sparse_detail::make_coo(indices, t.impl()->sparse->values.index_select(0, at), std::move(sizes), false);
}

// t's coordinates with new values (an op on a dense dim).
Tensor with_new_values(const Tensor& t, const Tensor& values, DimVector sizes) {
  SparseParts parts = *t.impl()->sparse;
  parts.indices = parts.indices.clone();
  parts.values = values;
  parts.coalesced = false;  // torch's flag after an op on a dense dim
  return sparse_detail::make_sparse(std::move(parts), std::move(sizes));
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
  EMBER_CHECK(index >= -size && index < size, IndexError, "select(): index ", index,
              " out of range for tensor of size ", int_list(t.sizes()), " at dimension ", d);
  if (index < 0) index += size;
  DimVector sizes;
  for (int64_t k = 0; k < t.dim(); ++k) if (k != d) sizes.push_back(t.size(k));
  Tensor r = autograd::untracked([&] {
    const Tensor& values = t.impl()->sparse->values;
    if (d >= t.sparse_dim()) return with_new_values(t, values.select(d - t.sparse_dim() + 1, index), sizes);
    std::vector<int64_t> slot;
    std::vector<int64_t> entries = entries_at(t, d, {index}, slot);
    if (t.sparse_dim() > 1) return picked(t, d, entries, nullptr, sizes);
    // no sparse dim left: torch's dense result, the entries at `index` summed
    return sum(values.index_select(0, sparse_detail::int64_tensor(entries)), {0});
  });
  DimVector in_sizes(t.sizes());
  sparse_detail::record_dense_gradient("SelectBackward0", r, t, [in_sizes, d, index](const Tensor& g) {
    Tensor grad = zeros(in_sizes, g.options());
    grad.select(d, index).copy_(g);
    return grad;
  });
  return r;
}

Tensor sparse_index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  check_coo(t, "index_select");
  EMBER_CHECK(t.dim() > 0, IndexError, "index_select() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(dim, t.dim());
  EMBER_CHECK(index.dtype() == kInt64, IndexError, "index_select() argument index must be 1-D strided (non-sparse) "
              "long-tensor.");
  Tensor host = index.contiguous().reshape({-1});
  std::vector<int64_t> wanted(host.data_ptr<int64_t>(), host.data_ptr<int64_t>() + host.numel());
  for (int64_t& i : wanted) {  // torch: a sparse dim wraps negative indices, a dense dim refuses them
    if (d < t.sparse_dim()) {
      EMBER_CHECK(i >= -t.size(d) && i < t.size(d), IndexError, "index_select(): index contains ", i,
                  " that is out of range for tensor of size ", int_list(t.sizes()), " at dimension ", d);
    } else {
      EMBER_CHECK(i >= 0 && i < t.size(d), Error, "index ", i, " is out of bounds for dimension ", d, " with size ",
                  t.size(d));
    }
    if (i < 0) i += t.size(d);
  }
  Tensor positions = sparse_detail::int64_tensor(wanted);
  DimVector sizes(t.sizes());
  sizes[size_t(d)] = int64_t(wanted.size());
  Tensor r = autograd::untracked([&] {
    if (d >= t.sparse_dim()) {
      return with_new_values(t, t.impl()->sparse->values.index_select(d - t.sparse_dim() + 1, positions), sizes);
    }
    std::vector<int64_t> slot;
    std::vector<int64_t> entries = entries_at(t, d, wanted, slot);
    return picked(t, d, entries, &slot, sizes);
  });
  DimVector in_sizes(t.sizes());
  sparse_detail::record_dense_gradient("IndexSelectBackward0", r, t, [in_sizes, d, positions](const Tensor& g) {
    return zeros(in_sizes, g.options()).index_add(d, positions, g);
  });
  return r;
}

Tensor sparse_unsqueeze(const Tensor& t, int64_t dim) {
  check_coo(t, "unsqueeze");
  int64_t d = wrap_dim(dim, t.dim() + 1);
  DimVector sizes(t.sizes());
  sizes.insert(size_t(d), 1);
  Tensor r = autograd::untracked([&] {
    const SparseParts& p = *t.impl()->sparse;
    if (d > t.sparse_dim()) return with_new_values(t, p.values.unsqueeze(d - t.sparse_dim() + 1), sizes);
    Tensor indices = zeros({p.indices.size(0) + 1, p.indices.size(1)}, TensorOptions(kInt64));
    indices.narrow(0, 0, d).copy_(p.indices.narrow(0, 0, d));
    indices.narrow(0, d + 1, p.indices.size(0) - d).copy_(p.indices.narrow(0, d, p.indices.size(0) - d));
    return sparse_detail::make_coo(indices, p.values, sizes, false);  // torch's unsqueeze drops the flag
  });
  sparse_detail::record_dense_gradient("UnsqueezeBackward0", r, t, [d](const Tensor& g) { return g.squeeze(d); });
  return r;
}

}  // namespace ember

#include "ember/data/datasets.h"

#include <cstring>

#include "ember/creation.h"
#include "ember/errors.h"
#include "ember/ops.h"

namespace ember::data {

TensorDataset::TensorDataset(Tensor data, Tensor target)
    : data_(data.contiguous()), target_(target.contiguous()) {
  EMBER_CHECK(data_.dim() > 0 && target_.dim() > 0 && data_.size(0) == target_.size(0), ValueError,
              "Size mismatch between tensors");
}

Example TensorDataset::get(int64_t index) {
  EMBER_CHECK(index >= -size() && index < size(), IndexError, "index ", index, " is out of bounds for dimension 0 with "
              "size ", size());
  return {data_.select(0, index), target_.select(0, index)};
}

namespace {

// The rows of `t` at `indices`: one memcpy per row for contiguous CPU tensors (the batch path), else index_select.
Tensor gather_rows(const Tensor& t, std::span<const int64_t> indices) {
  int64_t n = t.size(0);
  for (int64_t i : indices) EMBER_CHECK(i >= 0 && i < n, IndexError, "index ", i, " is out of bounds for dimension 0 "
                                        "with size ", n);
  if (!t.device().is_cpu() || !t.is_contiguous()) {
    Tensor idx = tensor(std::vector<int64_t>(indices.begin(), indices.end()), DimVector{int64_t(indices.size())});
    return index_select(t, 0, idx);
  }
  DimVector sizes(t.sizes());
  sizes[0] = int64_t(indices.size());
  Tensor out = empty(sizes, t.options());
  size_t row = n > 0 ? t.nbytes() / size_t(n) : 0;
  const char* src = static_cast<const char*>(t.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  for (size_t k = 0; k < indices.size(); ++k) std::memcpy(dst + k * row, src + size_t(indices[k]) * row, row);
  return out;
}

}  // namespace

Example TensorDataset::get_batch(std::span<const int64_t> indices) {
  return {gather_rows(data_, indices), gather_rows(target_, indices)};
}

}  // namespace ember::data

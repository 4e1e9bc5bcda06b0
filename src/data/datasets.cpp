#include "ember/data/datasets.h"

#include "ember/creation.h"
#include "ember/errors.h"
#include "ember/ops.h"

namespace ember::data {

TensorDataset::TensorDataset(Tensor data, Tensor target) : data_(std::move(data)), target_(std::move(target)) {
  EMBER_CHECK(data_.dim() > 0 && target_.dim() > 0 && data_.size(0) == target_.size(0), ValueError,
              "Size mismatch between tensors");
}

Example TensorDataset::get(int64_t index) {
  EMBER_CHECK(index >= -size() && index < size(), IndexError, "index ", index, " is out of bounds for dimension 0 with "
              "size ", size());
  return {data_.select(0, index), target_.select(0, index)};
}

Example TensorDataset::get_batch(std::span<const int64_t> indices) {
  Tensor idx = tensor(std::vector<int64_t>(indices.begin(), indices.end()), DimVector{int64_t(indices.size())});
  return {index_select(data_, 0, idx), index_select(target_, 0, idx)};
}

}  // namespace ember::data

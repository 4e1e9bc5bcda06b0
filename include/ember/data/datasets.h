// Ready-made C++ datasets.
#pragma once
#include "ember/data/dataset.h"

namespace ember::data {

// Samples are rows of `data` and `target` (torch's TensorDataset of two tensors, held contiguous); a batch
// is one row copy per sample.
class TensorDataset final : public Dataset {
 public:
  TensorDataset(Tensor data, Tensor target);
  int64_t size() const override { return data_.size(0); }
  Example get(int64_t index) override;
  Example get_batch(std::span<const int64_t> indices) override;

 private:
  Tensor data_, target_;
};

}  // namespace ember::data

// The C++ dataset interface (torch.utils.data.Dataset for C++): map-style datasets that the C++
// DataLoader batches in its own threads, with no Python in the loop.
#pragma once
#include <cstdint>
#include <span>

#include "ember/tensor.h"

namespace ember::data {

// One sample, or a batch of them stacked along a new first dim.
struct Example {
  Tensor data;
  Tensor target;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  // Sample `index` in [0, size()); thread-safe: loader threads call it concurrently.
  virtual Example get(int64_t index) = 0;
  // The samples at `indices`, stacked; datasets that can fill a batch faster (one copy into
  // preallocated memory) override this.
  virtual Example get_batch(std::span<const int64_t> indices);
};

}  // namespace ember::data

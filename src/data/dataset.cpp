// Default batching for C++ datasets: get each sample, then stack data and targets.
#include "ember/data/dataset.h"

#include <vector>

#include "ember/ops.h"

namespace ember::data {

Example Dataset::get_batch(std::span<const int64_t> indices) {
  std::vector<Tensor> data, targets;
  data.reserve(indices.size());
  targets.reserve(indices.size());
  for (int64_t i : indices) {
    Example e = get(i);
    data.push_back(std::move(e.data));
    targets.push_back(std::move(e.target));
  }
  return {stack(data), stack(targets)};
}

}  // namespace ember::data

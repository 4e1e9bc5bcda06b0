// The view scatters (src/ops/view_scatter.cpp): a copy of input with one view of it (a select, a slice, a diagonal)
// replaced by src, which must have that view's shape (src converts to input's dtype).
#pragma once
#include <optional>

#include "ember/tensor.h"

namespace ember {

Tensor select_scatter(const Tensor& input, const Tensor& src, int64_t dim, int64_t index);
Tensor slice_scatter(const Tensor& input, const Tensor& src, int64_t dim = 0, std::optional<int64_t> start = {},
                     std::optional<int64_t> end = {}, int64_t step = 1);
Tensor diagonal_scatter(const Tensor& input, const Tensor& src, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);

}  // namespace ember

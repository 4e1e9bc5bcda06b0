// Shape ops that change a tensor's own sizes and strides (squeeze_, unsqueeze_, t_, transpose_), and the small
// shape utility sum_to_size (src/ops/shape_in_place.cpp).
#pragma once
#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// self takes the sizes, strides and offset of its view computed by the out-of-place op (and its history where
// self is in the graph; a leaf that requires grad is refused, as torch).
Tensor& squeeze_(Tensor& self, std::optional<IntArrayRef> dims = std::nullopt);
Tensor& squeeze_(Tensor& self, int64_t dim);
Tensor& unsqueeze_(Tensor& self, int64_t dim);
Tensor& transpose_(Tensor& self, int64_t dim0, int64_t dim1);
Tensor& t_(Tensor& self);
// self summed down to `sizes` (self must broadcast from it): SumBackward1, or self itself when the sizes match.
Tensor sum_to_size(const Tensor& self, IntArrayRef sizes);

}  // namespace ember

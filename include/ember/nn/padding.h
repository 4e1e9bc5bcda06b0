// Padding: torch.nn.functional.pad (constant, reflect, replicate, circular; negative pads crop) and
// torch.constant_pad_nd.
#pragma once
#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember::nn::functional {

// pad holds (left, right) pairs from the last dim backwards. Constant padding takes any number of dims (value
// defaults to 0); the other modes pad the last 1, 2 or 3 dims of an input with 1 or 2 more dims.
Tensor pad(const Tensor& input, IntArrayRef pad, std::string_view mode = "constant", std::optional<double> value = {});

}  // namespace ember::nn::functional

namespace ember {

Tensor constant_pad_nd(const Tensor& input, IntArrayRef pad, const Scalar& value = 0);

}  // namespace ember

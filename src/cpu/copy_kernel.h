// Strided copy with dtype conversion: the kernel under copy_, contiguous, clone, to and fill_.
#pragma once
#include "ember/tensor.h"

namespace ember::cpu {

// dst and src have the same sizes (src already broadcast) and do not overlap.
void copy_kernel(const Tensor& dst, const Tensor& src);
// Writes `value` (converted to dst's dtype) to every element of dst.
void fill_kernel(const Tensor& dst, const Scalar& value);

}  // namespace ember::cpu

// Gather/scatter loops behind advanced indexing.
#pragma once
#include "ember/tensor.h"

namespace ember::cpu {

// For each j < offsets.numel() and each position r of the strided "rest" block (rest_sizes,
// rest_strides, in elements from base_offset of `src`): core[j, r] = src[base_offset + offsets[j] + r].
void index_gather(const Tensor& src, int64_t base_offset, IntArrayRef rest_sizes, IntArrayRef rest_strides,
                  const Tensor& offsets, const Tensor& core);
// The reverse: dst[base_offset + offsets[j] + r] = core[j, r] (or += when accumulate).
void index_scatter(const Tensor& dst, int64_t base_offset, IntArrayRef rest_sizes, IntArrayRef rest_strides,
                   const Tensor& offsets, const Tensor& core, bool accumulate);

}  // namespace ember::cpu

// Shape and stride reasoning shared by ops: broadcasting, density, dense stride inference.
#pragma once
#include <span>

#include "ember/tensor.h"

namespace ember {

// torch's broadcasting; raises "The size of tensor a (3) must match ..." on mismatch.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b);

// True when the elements exactly fill a block of memory, each once (any dim order).
bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides);
// Dense strides that keep the dim order of `strides` (stride-0 dims stay in place).
DimVector infer_dense_strides(IntArrayRef sizes, IntArrayRef strides);
// The same over several operands: the first one that orders two dims decides (torch's
// TensorIterator rule for an output's layout).
DimVector infer_dense_strides(IntArrayRef sizes, std::span<const IntArrayRef> operand_strides);

// torch's channels-last memory format (4-D NHWC, 5-D NDHWC): whether a tensor is dense in it (size-1 dims
// ignored), and the strides of a fresh tensor in it.
bool is_channels_last_contiguous(IntArrayRef sizes, IntArrayRef strides);
DimVector channels_last_strides(IntArrayRef sizes);
// torch's suggest_memory_format: whether strides order the dims as channels-last (ambiguous cases are not).
bool is_channels_last_like(IntArrayRef sizes, IntArrayRef strides);
// The same stride rule without is_channels_last_like's N111 exception (convolution judges such tensors twice).
bool is_channels_last_strides(IntArrayRef sizes, IntArrayRef strides);
// Strides of a fresh tensor in `format` (Contiguous or ChannelsLast(3d), which need rank 4 (5)).
DimVector memory_format_strides(IntArrayRef sizes, MemoryFormat format);

// t expanded to `shape` as torch's iterator sees an operand: new dims have stride 0 too (expand gives a new
// dim of size 1 a dense stride, which would change the layout elementwise_strides infers).
Tensor broadcast_operand(const Tensor& t, IntArrayRef shape);
// torch's TensorIterator output layout for operands expanded to `shape` (`same_shape`: none was broadcast):
// its fast setups (all contiguous, all channels-last, all dense in one layout), else infer_dense_strides.
DimVector elementwise_strides(IntArrayRef shape, std::span<const Tensor> operands, bool same_shape);

enum class Overlap { None, Full, Partial, TooHard };
// Whether a tensor refers to one memory location from several indices (e.g. expanded dims).
Overlap internal_overlap(const Tensor& t);
// How the memory of two tensors relates.
Overlap overlap(const Tensor& a, const Tensor& b);
// Raises torch's error when writing to `t` would hit one location from several elements.
void check_no_internal_overlap(const Tensor& t);
// Raises torch's error when `input` shares some but not all of the memory `out` is written to.
void check_no_partial_overlap(const Tensor& out, const Tensor& input);
// Raises torch's as_strided error for a negative stride (views never have one; a huge slice or unfold step
// wraps the stride negative, as in torch).
void check_strides_nonnegative(IntArrayRef strides);

}  // namespace ember

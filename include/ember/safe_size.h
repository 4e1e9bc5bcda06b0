// Overflow-checked size, stride and offset arithmetic, with torch's rules and messages. Every path
// that makes or reshapes a tensor computes its numel, strides and storage bytes through these.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ember/dim_vector.h"

namespace ember {

// a * b and a + b into *out; true when the exact result does not fit T. The uint64_t forms take
// sizes and strides as torch does: a negative one wraps to a huge value, so it overflows too.
template <typename T>
inline bool mul_overflows(T a, T b, T* out) { return __builtin_mul_overflow(a, b, out); }
template <typename T>
inline bool add_overflows(T a, T b, T* out) { return __builtin_add_overflow(a, b, out); }

// Product of sizes; raises "numel: integer multiplication overflow" past INT64_MAX (a negative
// size counts as one).
int64_t safe_numel(IntArrayRef sizes);
// Strides of a contiguous tensor of these sizes; raises "Stride calculation overflowed".
DimVector contiguous_strides(IntArrayRef sizes);
// Bytes of storage a contiguous tensor, or a strided one (0 when it has no elements), needs up to
// its end from element 0 when it starts at element `offset`; raises "Storage size calculation
// overflowed with sizes=..." past INT64_MAX.
size_t storage_nbytes(IntArrayRef sizes, size_t itemsize, int64_t offset = 0);
size_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, size_t itemsize, int64_t offset = 0);

}  // namespace ember

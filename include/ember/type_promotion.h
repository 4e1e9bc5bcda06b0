// torch's type promotion: promote_types, result_type over tensors and wrapped scalars, can_cast.
#pragma once
#include <span>

#include "ember/tensor.h"

namespace ember {

// The smallest dtype both promote to (torch.promote_types); float8 types promote only with themselves.
ScalarType promote_types(ScalarType a, ScalarType b);

// torch.result_type: dims > 0 tensors outrank 0-dim tensors, which outrank wrapped Python
// numbers, except that a higher category (bool < integer < floating) always wins.
ScalarType result_type(std::span<const Tensor> operands);

// Whether a value of `from` may be written to `to` in place or through out= (no float -> int,
// nothing but bool -> bool).
bool can_cast(ScalarType from, ScalarType to);
// torch's error where an op's result of dtype `result` cannot be written into an output of dtype `out`.
void check_result_fits_output(ScalarType result, ScalarType out);

// The dtype torch computes `t`'s elementwise math in (opmath): float32 for float16 and bfloat16.
ScalarType opmath_dtype(ScalarType t);

// A 0-dim tensor holding a Python number; it takes part in promotion as a "wrapped number".
Tensor wrapped_scalar(const Scalar& value);

// Raises, as torch's checked scalar conversion, when `t` is a wrapped number that does not fit `dtype`.
void check_wrapped_fits(const Tensor& t, ScalarType dtype);

}  // namespace ember

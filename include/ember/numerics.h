// Numerical utilities (src/ops/numerics.cpp): set membership, frexp, index unravelling, Vandermonde matrices,
// covariance and correlation, and trapezoidal integration, with torch's semantics.
#pragma once
#include <optional>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// Whether each element of `elements` is in `test` (values compared after promotion; NaN is in nothing).
Tensor isin(const Tensor& elements, const Tensor& test, bool assume_unique = false, bool invert = false);
// Whether each element is real: all true for the real dtypes.
Tensor isreal(const Tensor& x);
// x = mantissa * 2^exponent with 0.5 <= |mantissa| < 1 (0, inf, NaN: mantissa x, exponent 0); exponent int32.
std::tuple<Tensor, Tensor> frexp(const Tensor& x);
// The coordinates in `shape` of each flat index (Python's modulo for indices outside it), one int64 tensor per dim.
std::vector<Tensor> unravel_index(const Tensor& indices, IntArrayRef shape);
// The powers x^(N-1) ... x^0 of a vector (increasing: x^0 ... x^(N-1)); integers and bool in int64.
Tensor vander(const Tensor& x, std::optional<int64_t> n = {}, bool increasing = false);
// Covariance of the rows (variables) of a 1- or 2-D input over its columns (observations), with optional integer
// frequency weights and float observation weights; corrcoef normalises it to [-1, 1].
Tensor cov(const Tensor& input, int64_t correction = 1, const std::optional<Tensor>& fweights = {},
           const std::optional<Tensor>& aweights = {});
Tensor corrcoef(const Tensor& input);
// The trapezoidal rule along dim with sample points x (a vector, or y's shape) or a constant spacing dx;
// cumulative_trapezoid keeps the running integrals.
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, double dx = 1.0, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, double dx = 1.0, int64_t dim = -1);

}  // namespace ember

// Numerical utilities composed from other ops: isin, isreal, frexp, unravel_index, vander, cov, corrcoef and the
// trapezoidal rule (ember/numerics.h).
#include "ember/numerics.h"

#include <algorithm>
#include <cmath>

#include "../autograd/formulas_pointwise.h"
#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/shape_utils.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

Tensor number(double v) { return wrapped_scalar(v); }

// x * v as torch's C++ composites multiply by a number (mul.Scalar, recorded as MulBackward1).
Tensor times_number(const Tensor& x, double v) {
  Tensor r = autograd::untracked([&] { return mul(x, number(v)); });
  if (autograd::needs_grad({&x})) autograd::record_mul_scalar(r, x, v);
  return r;
}

}  // namespace

Tensor isin(const Tensor& elements, const Tensor& test, bool assume_unique, bool invert) {
  (void)assume_unique;  // a hint only: the result is the same
  for (const Tensor* t : {&elements, &test}) {
    EMBER_CHECK(t->dtype() != kBool, Error, "Unsupported input type encountered for isin(): Bool");
  }
  Tensor flat = test.reshape({-1});
  // compared in chunks of elements, so the (chunk, test) table stays small
  Tensor e = elements.reshape({-1});
  int64_t chunk = std::max<int64_t>(1, (int64_t(1) << 22) / std::max<int64_t>(1, flat.numel()));
  std::vector<Tensor> parts;
  for (int64_t start = 0; start < e.numel(); start += chunk) {
    Tensor piece = e.narrow(0, start, std::min(chunk, e.numel() - start));
    parts.push_back(any(eq(piece.unsqueeze(1), flat.unsqueeze(0)), std::vector<int64_t>{1}));
  }
  Tensor found = parts.empty() ? zeros(elements.sizes(), elements.options().dtype(kBool))
                               : cat(parts, 0).reshape(elements.sizes());
  return invert ? logical_not(found) : found;
}

Tensor isreal(const Tensor& x) { return ones_like(x, kBool); }

std::tuple<Tensor, Tensor> frexp(const Tensor& x) {
  EMBER_CHECK(x.is_floating_point(), Error, "torch.frexp() only supports floating-point dtypes");
  auto [mantissa, exponent] = autograd::untracked([&] {
    Tensor xd = x.to(kFloat64);
    Tensor regular = logical_and(isfinite(xd), ne(xd, number(0)));
    Tensor e = where(regular, add(floor(log2(abs(xd))), number(1)), number(0));
    // x * 2^-e in two halves, so neither factor overflows for the smallest subnormals
    Tensor half = floor(div(e, number(2)));
    Tensor m = mul(mul(xd, pow(number(2), neg(half))), pow(number(2), sub(half, e)));
    // log2 may round across a power of 2: bring |m| into [0.5, 1)
    Tensor big = logical_and(regular, ge(abs(m), number(1))), small = logical_and(regular, lt(abs(m), number(0.5)));
    m = where(big, div(m, number(2)), where(small, mul(m, number(2)), m));
    e = add(e, sub(big.to(kFloat64), small.to(kFloat64)));
    return std::pair{m.to(x.dtype()), e.to(kInt32)};
  });
  if (autograd::needs_grad({&x})) autograd::record_frexp(mantissa, exponent, x);
  return {mantissa, exponent};
}

std::vector<Tensor> unravel_index(const Tensor& indices, IntArrayRef shape) {
  EMBER_CHECK(!indices.is_floating_point() && indices.dtype() != kBool, TypeError,
              "expected 'indices' to be integer dtype, but got torch.", dtype_info(indices.dtype()).name);
  std::vector<Tensor> coords(shape.size());
  Tensor rest = indices.to(kInt64);
  for (size_t i = shape.size(); i-- > 0;) {
    Tensor size = number(double(shape[i])).to(kInt64);
    coords[i] = remainder(rest, size);
    rest = div(rest, size, "floor");
  }
  // views of one (..., ndim) tensor, as torch's results
  return coords.empty() ? coords : stack(coords, -1).unbind(-1);
}

Tensor vander(const Tensor& x, std::optional<int64_t> n, bool increasing) {
  EMBER_CHECK(x.dim() == 1, Error, "x must be a one-dimensional tensor.");
  int64_t columns = n.value_or(x.size(0));
  EMBER_CHECK(columns >= 0, Error, "N must be non-negative.");
  Tensor base = x.is_floating_point() ? x : x.to(kInt64);
  if (columns == 0) return empty({x.size(0), 0}, base.options());
  // 1, x, x^2, ... as a running product, reversed unless increasing (torch's graph: CumprodBackward0, FlipBackward0)
  Tensor ones_column = ones({x.size(0), 1}, base.options());
  if (columns == 1) return ones_column;  // x^0 only: no graph, as torch's
  const Tensor parts[2] = {ones_column, base.unsqueeze(1).expand({x.size(0), columns - 1})};
  Tensor powers = cumprod(cat(parts, 1), 1);
  return increasing ? powers : flip(powers, std::vector<int64_t>{1});
}

Tensor cov(const Tensor& input, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  EMBER_CHECK(input.dim() <= 2, Error, "cov(): expected input to have two or fewer dimensions but got an input with ",
              input.dim(), " dimensions");
  EMBER_CHECK(input.dtype() != kBool, Error, "cov(): bool dtype is not supported for input");
  Tensor x = input.dim() < 2 ? input.view({1, -1}) : input;
  if (!x.is_floating_point()) x = x.to(default_dtype());
  int64_t observations = x.size(1);
  std::optional<Tensor> w;
  if (fweights) {
    EMBER_CHECK(fweights->dim() <= 1, Error, "cov(): expected fweights to have one or fewer dimensions but got fweights "
                "with ", fweights->dim(), " dimensions");
    EMBER_CHECK(!fweights->is_floating_point(), Error, "cov(): expected fweights to have integral dtype but got "
                "fweights with ", legacy_name(fweights->dtype()), " dtype");
    EMBER_CHECK(fweights->numel() == observations, Error, "cov(): expected fweights to have the same numel as there "
                "are observations in the input but got ", fweights->numel(), " != ", observations);
    EMBER_CHECK(fweights->numel() == 0 || min(*fweights).item().to_double() >= 0, Error,
                "cov(): fweights cannot be negative");
    w = *fweights;
  }
  if (aweights) {
    EMBER_CHECK(aweights->dim() <= 1, Error, "cov(): expected aweights to have one or fewer dimensions but got aweights "
                "with ", aweights->dim(), " dimensions");
    EMBER_CHECK(aweights->is_floating_point(), Error, "cov(): expected aweights to have floating point dtype but got "
                "aweights with ", legacy_name(aweights->dtype()), " dtype");
    EMBER_CHECK(aweights->numel() == observations, Error, "cov(): expected aweights to have the same numel as there "
                "are observations in the input but got ", aweights->numel(), " != ", observations);
    EMBER_CHECK(aweights->numel() == 0 || min(*aweights).item().to_double() >= 0, Error,
                "cov(): aweights cannot be negative");
    w = w ? mul(*w, *aweights) : *aweights;
  }
  Tensor w_sum = w ? sum(*w) : number(double(observations)).to(kInt64);
  Tensor avg = w ? div(sum(mul(x, *w), std::vector<int64_t>{1}), w_sum) : mean(x, std::vector<int64_t>{1});
  Tensor norm;
  if (!w) norm = number(double(observations - correction));
  else if (correction == 0) norm = w_sum;
  else if (!aweights) norm = sub(w_sum, number(double(correction)));
  else norm = sub(w_sum, div(mul(number(double(correction)), sum(mul(*w, *aweights))), w_sum));
  if (norm.item().to_double() <= 0) {
    warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.");
    norm = number(0);
  }
  Tensor centered = sub(x, avg.unsqueeze(1));
  Tensor weighted = w ? mul(centered, *w) : centered;
  return div(mm(centered, weighted.t()), norm).squeeze();
}

Tensor corrcoef(const Tensor& input) {
  EMBER_CHECK(input.dim() <= 2, Error, "corrcoef(): expected input to have two or fewer dimensions but got an input "
              "with ", input.dim(), " dimensions");
  Tensor c = cov(input);
  if (c.dim() == 0) return div(c, c);  // one variable: 1, or NaN
  Tensor stddev = sqrt(c.diagonal());
  c = div(div(c, stddev.unsqueeze(1)), stddev.unsqueeze(0));
  return clamp(c, number(-1), number(1));
}

namespace {

// (y[1:] + y[:-1]) along dim, the trapezoids' parallel sides.
Tensor sides(const Tensor& y, int64_t dim) {
  int64_t n = y.size(dim);
  return add(y.narrow(dim, 1, n - 1), y.narrow(dim, 0, n - 1));
}

// The spacings of sample points x along y's dim: a vector's differences (one per trapezoid), or x's own.
Tensor spacings(const Tensor& y, const Tensor& x, int64_t dim) {
  if (x.dim() == 1) {
    EMBER_CHECK(x.size(0) == y.size(dim), Error, "trapezoid: There must be one `x` value for each sample point");
    DimVector shape(size_t(y.dim()), 1);
    shape[size_t(dim)] = y.size(dim) - 1;
    return diff(x).view(shape);
  }
  return diff(x, 1, dim);
}

}  // namespace

namespace {

// trapezoid's dim (torch's IndexError for a 0-dim y; cumulative_trapezoid's is slice()'s); bool is refused, except
// where trapezoid has no samples (torch returns their zeros first).
int64_t integration_dim(const Tensor& y, const Tensor* x, int64_t dim, bool cumulative) {
  EMBER_CHECK(y.dim() > 0 || cumulative, IndexError, "Dimension specified as ", dim, " but tensor has no dimensions");
  const char* name = cumulative ? "cumulative_trapezoid" : "trapezoid";
  bool bool_input = y.dtype() == kBool || (x && x->dtype() == kBool);
  int64_t d = cumulative ? 0 : wrap_dim(dim, y.dim());
  EMBER_CHECK(!bool_input || (!cumulative && y.size(d) == 0), Error, name, ": received a bool input for `",
              x ? "x` or `y" : "y", "`, but bool is not supported");
  EMBER_CHECK(y.dim() > 0, IndexError, "slice() cannot be applied to a 0-dim tensor.");
  return cumulative ? wrap_dim(dim, y.dim()) : d;
}

// The integral of no samples: zeros of y's dtype without dim, as torch (and numpy).
Tensor no_samples(const Tensor& y, int64_t dim) {
  DimVector shape(y.sizes());
  shape.erase(size_t(dim));
  return zeros(shape, y.options());
}

}  // namespace

Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  int64_t d = integration_dim(y, &x, dim, false);
  if (y.size(d) == 0) return no_samples(y, d);
  return div(sum(mul(spacings(y, x, d), sides(y, d)), std::vector<int64_t>{d}), number(2));
}

Tensor trapezoid(const Tensor& y, double dx, int64_t dim) {
  int64_t d = integration_dim(y, nullptr, dim, false);
  if (y.size(d) == 0) return no_samples(y, d);
  // (sum - (first + last) / 2) dx, as torch: the sum accumulates integers in int64 (y[i] + y[i+1] could overflow).
  Tensor ends = times_number(add(y.select(d, 0), y.select(d, -1)), 0.5);
  return times_number(sub(sum(y, std::vector<int64_t>{d}), ends), dx);
}

Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  int64_t d = integration_dim(y, &x, dim, true);
  if (y.size(d) == 0) return y.to(y.is_floating_point() ? y.dtype() : default_dtype());
  return div(cumsum(mul(spacings(y, x, d), sides(y, d)), d), number(2));
}

Tensor cumulative_trapezoid(const Tensor& y, double dx, int64_t dim) {
  int64_t d = integration_dim(y, nullptr, dim, true);
  if (y.size(d) == 0) return y.to(y.is_floating_point() ? y.dtype() : default_dtype());
  return cumsum(times_number(sides(y, d), dx / 2), d);  // torch's order: each area, then the running sum
}

}  // namespace ember

// Elementwise ops composed from the basic ones: clamp, nan_to_num, gelu, softplus,
// round(decimals), logical_not, isclose, allclose, equal.
#include "../core/autocast_policy.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "../autograd/formulas.h"
#include "../iter/tensor_iterator.h"
#include "fused.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

// Number bounds must fit the result dtype, as torch.
void check_bounds_fit(const std::optional<Tensor>& min, const std::optional<Tensor>& max, ScalarType dtype) {
  for (const auto* bound : {&min, &max})
    if (*bound) check_wrapped_fits(**bound, dtype);
}

// Whether clamp(x, min, max) is a float x (not quantized) bounded by numbers, which one fused pass computes.
bool number_bounds_of_float(const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  auto number = [](const std::optional<Tensor>& b) { return !b || b->impl()->is_wrapped_number; };
  return (min || max) && is_floating_point(x.dtype()) && number(min) && number(max);
}

// clamp of a float x by numbers into `out` (undefined: a new tensor); a missing bound is an infinity.
Tensor clamp_by_numbers(const Tensor& out, const Tensor& x, const std::optional<Tensor>& min,
                        const std::optional<Tensor>& max) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  Scalar lo = min ? min->item() : Scalar(-inf), hi = max ? max->item() : Scalar(inf);
  return run_fused(FusedPointwise::Clamp, out, std::span(&x, 1), {lo, hi});
}

}  // namespace

Tensor clamp(const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  EMBER_CHECK(min || max, Error, "torch.clamp: At least one of 'min' or 'max' must not be None");
  ScalarType dtype = result_type(std::array{x, min.value_or(x), max.value_or(x)});
  if (dtype == kBool) {  // torch's bool kernels: clamp_min/clamp_max by a tensor only
    const char* kernel = min && max ? "clamp_cpu" : min && min->impl()->is_wrapped_number ? "clamp_min_scalar_cpu"
                       : max && max->impl()->is_wrapped_number ? "clamp_max_scalar_cpu" : nullptr;
    EMBER_CHECK(!kernel, NotImplementedError, "\"", kernel ? kernel : "", "\" not implemented for 'Bool'");
  }
  check_bounds_fit(min, max, dtype);
  Tensor r = autograd::untracked([&] {  // all three cast to the result dtype first, as torch
    if (number_bounds_of_float(x, min, max)) return clamp_by_numbers(Tensor(), x, min, max);
    Tensor input = x.to(dtype);
    Tensor lower = min ? maximum(input, min->to(dtype)) : input;  // maximum/minimum keep NaNs of x, as clamp does
    Tensor clamped = max ? minimum(lower, max->to(dtype)) : lower.is_same(x) ? x.clone() : lower;
    const Tensor operands[3] = {x, min.value_or(x), max.value_or(x)};
    return in_elementwise_layout(clamped, operands);
  });
  if (autograd::needs_grad({&x, min ? &*min : &x, max ? &*max : &x})) autograd::record_clamp(r, x, min, max);
  return r;
}

Tensor& clamp_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  auto compute = [&] {
    Tensor r = clamp(self, min, max);
    EMBER_CHECK(can_cast(r.dtype(), self.dtype()), Error, "result type ", legacy_name(r.dtype()),
                " can't be cast to the desired output type ", dtype_info(self.dtype()).cpp_name);
    return r;
  };
  // Recorded as an in-place op: clamp's saved input is the pre-write value, not a modified tensor.
  if (autograd::needs_grad({&self, min ? &*min : &self, max ? &*max : &self}) || autograd::writes_into_graph_view(self)) {
    return autograd::record_in_place(self, compute);
  }
  autograd::check_in_place(self);
  if (number_bounds_of_float(self, min, max)) {  // one pass in place, no result to allocate and copy back
    check_bounds_fit(min, max, self.dtype());
    clamp_by_numbers(self, self, min, max);
    return self;
  }
  self.copy_(compute());
  return self;
}

Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf, std::optional<double> neginf) {
  if (!x.is_floating_point()) return x.clone();
  double big = x.dtype() == kFloat64 ? std::numeric_limits<double>::max()
             : x.dtype() == kFloat16 ? 65504.0
             : x.dtype() == kBFloat16 ? 3.3895313892515355e38
             : double(std::numeric_limits<float>::max());
  // Replacements are cast to x's dtype unchecked (1e300 gives inf in float32), as torch.
  Tensor r = autograd::untracked([&] {
    Tensor t = run_fused(FusedPointwise::NanToNum, Tensor(), std::span(&x, 1),
                         {nan, posinf.value_or(big), neginf.value_or(-big)});
    // torch writes into empty_like(x): x's own strides where x is dense, size-1 dims included
    if (!is_non_overlapping_and_dense(x.sizes(), x.strides()) || std::ranges::equal(t.strides(), x.strides())) return t;
    return empty_like(x).copy_(t);
  });
  if (autograd::needs_grad({&x})) autograd::record_nan_to_num(r, x);
  return r;
}

Tensor& nan_to_num_out(Tensor& out, const Tensor& x, double nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  EMBER_CHECK(out.dtype() == x.dtype(), Error, "nan_to_num: dtype of out: ", legacy_name(out.dtype()),
              " should be same as input: ", legacy_name(x.dtype()));
  auto compute = [&] { return nan_to_num(x, nan, posinf, neginf); };
  if (autograd::needs_grad({&x, &out})) return autograd::record_out(out, x, "nan_to_num", compute);
  Tensor r = compute();
  // Integer inputs are copied into out resized contiguous (torch's nan_to_num_out); floats take the iterator's layout.
  if (x.is_floating_point()) {
    resize_output_like(out, r);
  } else {
    resize_output(out, r.sizes());
  }
  return out.copy_(r);
}

Tensor gelu(const Tensor& x, bool tanh_approximation) { return tanh_approximation ? gelu_tanh(x) : gelu_erf(x); }

Tensor softplus(const Tensor& x, double beta, double threshold) {
  EMBER_AUTOCAST(fp32, kCUDA, softplus, x, beta, threshold);
  EMBER_CHECK(x.is_floating_point(), NotImplementedError, "\"softplus_cpu\" not implemented for '",
              legacy_name(x.dtype()), "'");
  Tensor r = autograd::untracked([&] {
    // float16/bfloat16 compute in float, as torch's kernel (exp of 12 overflows half)
    bool narrow = x.dtype() == kFloat16 || x.dtype() == kBFloat16;
    Tensor xc = narrow ? x.to(kFloat32) : x;
    Tensor bx = mul(xc, wrapped_scalar(beta));
    Tensor out = where(gt(bx, wrapped_scalar(threshold)), xc, div(log1p(exp(bx)), wrapped_scalar(beta)));
    return narrow ? out.to(x.dtype()) : out;
  });
  if (autograd::needs_grad({&x})) autograd::record_softplus(r, x, beta, threshold);
  return r;
}

Tensor round(const Tensor& x, int64_t decimals) {
  if (decimals == 0) return round(x);
  EMBER_CHECK(x.is_floating_point(), NotImplementedError, "\"round_cpu\" not implemented for '",
              legacy_name(x.dtype()), "'");
  // as torch's kernel: float16/bfloat16 compute in float; a negative count divides first, then multiplies
  Tensor v = x.dtype() == kFloat16 || x.dtype() == kBFloat16 ? x.to(kFloat32) : x;
  Tensor ten_pow = wrapped_scalar(std::pow(10.0, double(std::abs(decimals))));
  Tensor r = decimals > 0 ? div(round(mul(v, ten_pow)), ten_pow) : mul(round(div(v, ten_pow)), ten_pow);
  return r.to(x.dtype());
}

Tensor logical_not(const Tensor& x) { return eq(x, wrapped_scalar(0)); }
Tensor& logical_not_out(Tensor& out, const Tensor& x) { return eq_out(out, x, wrapped_scalar(0)); }

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(b.impl()->is_wrapped_number || a.dtype() == b.dtype(), Error, legacy_name(a.dtype()),
              " did not match ", legacy_name(b.dtype()));
  Tensor close = eq(a, b);  // covers equal infinities
  if (equal_nan && a.is_floating_point()) close = logical_or(close, logical_and(isnan(a), isnan(b)));
  if (rtol == 0 && atol == 0) return close;
  // as torch: |a - b| <= atol + |rtol * b|, integers and bool in the default float dtype
  Tensor x = a.is_floating_point() ? a : a.to(default_dtype()), y = b.is_floating_point() ? b : b.to(default_dtype());
  Tensor actual = abs(sub(x, y)), allowed = add(wrapped_scalar(atol), abs(mul(wrapped_scalar(rtol), y)));
  return logical_or(close, logical_and(isfinite(actual), le(actual, allowed)));
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return all(isclose(a, b, rtol, atol, equal_nan)).item().to_bool();
}

bool equal(const Tensor& a, const Tensor& b) {
  if (!std::equal(a.sizes().begin(), a.sizes().end(), b.sizes().begin(), b.sizes().end())) return false;
  return all(eq(a, b)).item().to_bool();
}

}  // namespace ember

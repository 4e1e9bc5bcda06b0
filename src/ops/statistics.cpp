// Reductions composed from the basic ones: var/std, norms, count_nonzero, logsumexp, softmax, scans.
#include "../core/autocast_policy.h"
#include <algorithm>
#include <cmath>
#include <limits>

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "../dispatch/scan_kernel.h"
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/safe_size.h"
#include "ember/type_promotion.h"
#include "reduction_support.h"

namespace ember {

namespace {

void check_floating_input(const Tensor& x, const char* what) {
  EMBER_CHECK(x.is_floating_point(), Error, what, " only support floating point and complex dtypes");
}

// float16 and bfloat16 inputs compute in float32 (their squares overflow early), as torch's.
Tensor widened(const Tensor& x) { return x.to(opmath_dtype(x.dtype())); }

}  // namespace

namespace {

// torch's mean is a sequential Welford update (m += (x - m) / n), where an infinite m turns NaN at the next
// element: it stays infinite only where the one infinite element comes last. Patches `m` (keepdim shape) where
// it is infinite; finite data never gets past the check.
Tensor welford_mean(const Tensor& w, IntArrayRef dims, Tensor m) {
  if (w.dim() == 0 || !any(isinf(m)).item().to_bool()) return m;
  Tensor last = w;
  for (int64_t d = 0; d < w.dim(); ++d) {
    bool reduced = dims.empty() || std::any_of(dims.begin(), dims.end(), [&](int64_t r) { return wrap_dim(r, w.dim()) == d; });
    if (reduced && w.sizes()[size_t(d)] > 0) last = last.narrow(d, w.sizes()[size_t(d)] - 1, 1);
  }
  Tensor inf = isinf(w), one_inf_last = logical_and(eq(sum(inf, dims, true), wrapped_scalar(1)), isinf(last));
  return where(logical_and(isinf(m), logical_not(one_inf_last)), wrapped_scalar(NAN), m);
}

// `take_sqrt`: the standard deviation, taken before the cast to x's dtype (a float16 variance may overflow where
// its square root does not), as torch.
std::pair<Tensor, Tensor> var_mean_impl(const Tensor& x, IntArrayRef dims, double correction, bool keepdim,
                                        bool take_sqrt, bool with_mean = true) {
  check_floating_input(x, "std and var");
  if (is_float8(x.dtype()) && x.numel() > 0) {  // torch's whole-tensor kernel, and its per-dim one
    bool whole = dims.empty() || int64_t(dims.size()) == x.dim();
    EMBER_CHECK(!whole || with_mean, Error, "std_var_all: Unsupported dtype ", legacy_name(x.dtype()));
    check_not_float8(x, "std_cpu");
  }
  // torch's CPU accumulators: double for float32 (a float32 variance may overflow where the data does not)
  Tensor w = x.dtype() == kFloat32 || is_float8(x.dtype()) ? x.to(kFloat64) : widened(x);  // float8: empty here
  Tensor m = mean(w, dims, true);
  Tensor d = sub(w, m);
  double denom = std::max(0.0, double(reduced_count(x.sizes(), dims)) - correction);
  Tensor v = div(sum(mul(d, d), dims, keepdim), wrapped_scalar(denom));  // 0 degrees of freedom gives nan/inf, as torch
  if (take_sqrt) v = sqrt(v);
  if (!with_mean) return {v.to(x.dtype()), Tensor()};
  return {v.to(x.dtype()), welford_mean(w, dims, m).reshape(v.sizes()).to(x.dtype())};
}

}  // namespace

std::pair<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  auto r = autograd::untracked([&] { return var_mean_impl(x, dims, correction, keepdim, false); });
  if (autograd::needs_grad({&x})) autograd::record_var_std_mean(false, r.first, r.second, x, dims, correction, keepdim);
  return r;
}

Tensor var(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  Tensor r = autograd::untracked([&] { return var_mean_impl(x, dims, correction, keepdim, false, false).first; });
  if (autograd::needs_grad({&x})) autograd::record_var_std(false, r, x, dims, correction, keepdim);
  return r;
}

std::pair<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  auto r = autograd::untracked([&] { return var_mean_impl(x, dims, correction, keepdim, true); });
  if (autograd::needs_grad({&x})) autograd::record_var_std_mean(true, r.first, r.second, x, dims, correction, keepdim);
  return r;
}

Tensor std(const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  Tensor r = autograd::untracked([&] { return var_mean_impl(x, dims, correction, keepdim, true, false).first; });
  if (autograd::needs_grad({&x})) autograd::record_var_std(true, r, x, dims, correction, keepdim);
  return r;
}

namespace {

Tensor norm_impl(const Tensor& x, double p, IntArrayRef dims, bool keepdim) {
  EMBER_CHECK(x.is_floating_point(), Error, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
              legacy_name(x.dtype()));
  if (std::isinf(p) && x.numel() == 0) {  // max and min have no identity for an empty reduction
    const char* order = p > 0 ? "inf" : "-inf";
    EMBER_CHECK(!dims.empty(), Error, "linalg.vector_norm cannot compute the ", order, " norm on an empty tensor "
                "because the operation does not have an identity");
    for (int64_t d : dims) {
      EMBER_CHECK(x.sizes()[size_t(wrap_dim(d, x.dim()))] != 0, Error, "linalg.vector_norm cannot compute the ", order,
                  " norm on the dimension ", d, "because this dimension is empty and the operation does not have an "
                  "identity");
    }
  }
  Tensor input = widened(x);
  Tensor r = p == 2 ? sqrt(sum(mul(input, input), dims, keepdim))
           : p == 1 ? sum(abs(input), dims, keepdim)
           : std::isinf(p) ? (p > 0 ? amax(abs(input), dims, keepdim) : amin(abs(input), dims, keepdim))
           : p == 0 ? sum(ne(input, wrapped_scalar(0)).to(input.dtype()), dims, keepdim)
           : pow(sum(pow(abs(input), wrapped_scalar(p)), dims, keepdim), wrapped_scalar(1.0 / p));
  return r.to(x.dtype());
}

}  // namespace

Tensor norm(const Tensor& x, double p, IntArrayRef dims, bool keepdim) {
  Tensor r = autograd::untracked([&] { return norm_impl(x, p, dims, keepdim); });
  if (autograd::needs_grad({&x})) autograd::record_norm(r, x, p, dims, keepdim);
  return r;
}

// torch's whole-tensor count has no float8 kernel; its per-dim one is this composite
Tensor count_nonzero(const Tensor& x, IntArrayRef dims) {
  if (dims.empty()) check_not_float8(x, "nonzero_count_cpu");
  return sum(ne(x, wrapped_scalar(0)), dims, false);
}

namespace {

Tensor logsumexp_impl(const Tensor& x, IntArrayRef dims, bool keepdim) {
  Tensor input = x.is_floating_point() ? x : x.to(default_dtype());
  if (input.numel() == 0) return log(sum(exp(input), dims, keepdim));  // -inf (no max to shift by), as torch
  Tensor m = amax(input, dims, true);
  // An infinite max (all -inf, or a +inf) would make x - m NaN: shift by 0 there instead.
  Tensor finite_m = where(isfinite(m), m, wrapped_scalar(0));
  Tensor r = add(log(sum(exp(sub(input, finite_m)), dims, true)), finite_m);
  return keepdim ? r : r.view(sum(input, dims, false).sizes());
}

}  // namespace

Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim) {
  EMBER_AUTOCAST(fp32, kCUDA, logsumexp, x, dims, keepdim);
  Tensor r = autograd::untracked([&] { return logsumexp_impl(x, dims, keepdim); });
  if (autograd::needs_grad({&x})) autograd::record_logsumexp(r, x, dims, keepdim);
  return r;
}

namespace {

// A row-wise result moved back from the last dim, contiguous with torch's strides (a size-1 dim's stride is the next
// dims' extent, where the moved-back view left another).
Tensor moved_back(const Tensor& out, int64_t d, ScalarType dtype) {
  Tensor r = out.movedim({-1}, {d}).to(dtype).contiguous();
  if (std::ranges::equal(r.strides(), contiguous_strides(r.sizes()))) return r;
  return r.as_strided(r.sizes(), contiguous_strides(r.sizes()), r.storage_offset());  // differs in size-1 dims only
}

Tensor softmax_impl(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype, bool log) {
  Tensor input = dtype ? x.to(*dtype) : x;
  int64_t d = wrap_dim(dim, input.dim());
  if (input.numel() == 0) return input.clone();  // any dtype, as torch
  EMBER_CHECK(input.is_floating_point(), NotImplementedError, "\"", log ? "log_" : "",
              "softmax_lastdim_kernel_impl\" not implemented for '", legacy_name(input.dtype()), "'");
  if (input.dim() == 0) input = input.unsqueeze(0);
  ScalarType compute = input.dtype() == kFloat64 ? kFloat64 : kFloat32;  // half and bfloat16 compute in float
  Tensor rows = input.movedim({d}, {-1}).to(compute).contiguous();
  int64_t n = rows.dim() == 0 ? 1 : rows.sizes().back();
  Tensor out = empty(rows.sizes(), rows.options());
  // torch's last-dim kernel keeps a half row's sum in the input dtype; its other-dim kernel does not.
  ScalarType source = d == input.dim() - 1 ? input.dtype() : compute;
  kernels::softmax[x.device()](rows.reshape({-1, n}), out.view({-1, n}), log, source);
  Tensor result = moved_back(out, d, input.dtype());
  return x.dim() == 0 ? result.view(IntArrayRef()) : result;
}

template <bool Product>
Tensor scan(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  ScalarType out_dtype = dtype.value_or(x.is_floating_point() ? x.dtype() : kInt64);
  Tensor input = x.dim() == 0 ? x.unsqueeze(0) : x;
  int64_t d = wrap_dim(dim, input.dim());
  EMBER_CHECK(out_dtype != kBool || x.dim() == 0 || x.numel() == 0, NotImplementedError, "\"", Product ? "cumprod" : "cumsum",
              "_out_cpu\" not implemented for 'Bool'");
  // As torch: the input is cast to dtype first, then scanned in its CPU accumulator type (float for half/bfloat16).
  ScalarType acc_dtype = !is_floating_point(out_dtype) ? kInt64 : element_size(out_dtype) == 2 ? kFloat32 : kFloat64;
  if (x.numel() > 0 && x.dim() > 0) check_not_float8(x, Product ? "cumprod_out_cpu" : "cumsum_out_cpu", out_dtype);
  Tensor rows = input.movedim({d}, {-1}).to(out_dtype).to(acc_dtype).contiguous();
  Tensor out = empty_strided(rows.sizes(), rows.strides(), rows.options());  // rows' strides, kept by the result
  int64_t n = rows.sizes().back();
  if (rows.numel() > 0) kernels::scan[x.device()](rows.reshape({-1, n}), out.view({-1, n}), Product);
  Tensor result = moved_back(out, d, out_dtype);
  return x.dim() == 0 ? result.view(IntArrayRef()) : result;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST_FP32_DTYPE(kCUDA, softmax, x, dtype, dim);
  Tensor r = autograd::untracked([&] { return softmax_impl(x, dim, dtype, false); });
  if (autograd::needs_grad({&x}) && r.is_floating_point()) autograd::record_softmax(false, r, x, dim);  // dtype= converts first
  return r;
}

Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST_FP32_DTYPE(kCUDA, log_softmax, x, dtype, dim);
  Tensor r = autograd::untracked([&] { return softmax_impl(x, dim, dtype, true); });
  if (autograd::needs_grad({&x}) && r.is_floating_point()) autograd::record_softmax(true, r, x, dim);  // dtype= converts first
  return r;
}

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST_FP32_DTYPE(kCUDA, cumsum, x, dtype, dim);
  Tensor r = autograd::untracked([&] { return scan<false>(x, dim, dtype); });
  if (autograd::needs_grad({&x})) autograd::record_cumsum(r, x, dim);
  return r;
}

Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST_FP32_DTYPE(kCUDA, cumprod, x, dtype, dim);
  Tensor r = autograd::untracked([&] { return scan<true>(x, dim, dtype); });
  if (autograd::needs_grad({&x})) autograd::record_cumprod(r, x, dim);
  return r;
}

}  // namespace ember

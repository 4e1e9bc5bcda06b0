// out= forms of the reductions, scans and softmax (declared in ember/reduce.h): each checks out's dtype by torch's
// rule for that op, then computes out of place and copies (composite_out: resize as torch's out= tensors, refusal
// under autograd; softmax's out= records torch's NotImplemented node instead).
#include "ember/reduce.h"

#include "../autograd/function.h"
#include "ember/creation.h"
#include "ember/math_ops.h"
#include "ember/type_promotion.h"
#include "reduction_support.h"

namespace ember {

namespace {

using DimReduction = Tensor (*)(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>);
using Scan = Tensor (*)(const Tensor&, int64_t, std::optional<ScalarType>);

// A result that is not differentiable (indices, truth values) into out: no autograd check, as torch.
Tensor& write_plain(Tensor& out, const Tensor& result) {
  resize_output_like(out, result);
  return out.copy_(result);
}

// sum/prod/mean/cumsum/cumprod: dtype= fixes out's dtype; without it the op computes in out's dtype.
ScalarType computed_in(const Tensor& out, std::optional<ScalarType> dtype) {
  if (dtype) check_out_dtype(out, *dtype);
  return dtype.value_or(out.dtype());
}

Tensor& reduction_out(DimReduction fn, const char* name, Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim,
                      std::optional<ScalarType> dtype) {
  ScalarType t = computed_in(out, dtype);
  return composite_out(out, {&x}, name, [&] { return fn(x, dims, keepdim, t); });
}

Tensor& scan_out(Scan fn, const char* name, Tensor& out, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  wrap_dim(dim, std::max<int64_t>(x.dim(), 1));  // torch checks the dim before out's dtype
  ScalarType t = computed_in(out, dtype);
  return composite_out(out, {&x}, name, [&] { return fn(x, dim, t); });
}

Tensor& same_dtype_out(const char* name, Tensor& out, const Tensor& x, const std::function<Tensor()>& compute) {
  EMBER_CHECK(out.dtype() == x.dtype(), Error, "Expected the dtype for input and out to match, but got ",
              legacy_name(x.dtype()), " for input's dtype and ", legacy_name(out.dtype()), " for out's dtype.");
  return composite_out(out, {&x}, name, compute);
}

Tensor& softmax_like_out(Scan fn, const char* name, Tensor& out, const Tensor& x, int64_t dim,
                         std::optional<ScalarType> dtype) {
  wrap_dim(dim, std::max<int64_t>(x.dim(), 1));  // torch checks the dim before out's dtype
  check_out_dtype(out, dtype.value_or(x.dtype()));
  auto compute = [&] { return fn(x, dim, dtype); };
  // under autograd torch records its NotImplemented node on out (softmax.out has no derivative)
  if (autograd::needs_grad({&x, &out})) return autograd::record_out_not_implemented(out, name, {&x}, compute);
  return composite_out(out, {&x}, name, compute);
}

Tensor& truth_out(const char* name, Tensor& out, const std::function<Tensor()>& compute) {
  EMBER_CHECK(out.dtype() == kBool || out.dtype() == kUInt8, Error, name,
              " only supports bool tensor for result, got: ", legacy_name(out.dtype()));
  return write_plain(out, compute());
}

std::pair<Tensor&, Tensor&> extremum_dim_out(bool is_max, Tensor& values, Tensor& indices, const Tensor& x,
                                             int64_t dim, bool keepdim) {
  const char* name = is_max ? "max" : "min";
  check_out_dtype(values, x.dtype());
  check_out_dtype(indices, kInt64);
  composite_out(values, {&x, &indices}, name, [&] {
    auto [v, i] = is_max ? max(x, dim, keepdim) : min(x, dim, keepdim);
    write_plain(indices, i);
    return v;
  });
  return {values, indices};
}

// var/std into another floating dtype compute in out's (a float16 input into float32 keeps float32's precision);
// float16 into bfloat16 (or back) in float32, as torch's accumulators.
Tensor& spread_out(bool is_std, Tensor& out, const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  // torch's whole-tensor kernel takes a float16/bfloat16 input only into a float16/bfloat16 out
  bool whole = dims.empty() || int64_t(dims.size()) == x.dim();
  bool half_in = x.dtype() == kFloat16 || x.dtype() == kBFloat16;
  bool half_out = out.dtype() == kFloat16 || out.dtype() == kBFloat16;
  EMBER_CHECK(!(whole && half_in && !half_out), Error, "std_var_all: Unsupported dtype ", legacy_name(x.dtype()));
  return composite_out(out, {&x}, is_std ? "std" : "var", [&] {
    bool widen = x.is_floating_point() && is_floating_point(out.dtype());
    ScalarType compute = half_in && half_out && out.dtype() != x.dtype() ? kFloat32 : out.dtype();
    Tensor in = widen ? x.to(compute) : x;
    return is_std ? std(in, dims, correction, keepdim) : var(in, dims, correction, keepdim);
  });
}

}  // namespace

Tensor& sum_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  return reduction_out(&sum, "sum", out, x, dims, keepdim, dtype);
}
Tensor& prod_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  return reduction_out(&prod, "prod", out, x, dims, keepdim, dtype);
}
Tensor& mean_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(dtype || x.is_floating_point(), Error, "mean(): could not infer output dtype. Input dtype must be either "
              "a floating point or complex dtype. Got: ", legacy_name(x.dtype()));
  if (!dtype) check_result_fits_output(x.dtype(), out.dtype());
  return reduction_out(&mean, "mean", out, x, dims, keepdim, dtype);
}
Tensor& cumsum_out(Tensor& out, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_out(&cumsum, "cumsum", out, x, dim, dtype);
}
Tensor& cumprod_out(Tensor& out, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_out(&cumprod, "cumprod", out, x, dim, dtype);
}

Tensor& amax_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim) {
  return same_dtype_out("amax", out, x, [&] { return amax(x, dims, keepdim); });
}
Tensor& amin_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim) {
  return same_dtype_out("amin", out, x, [&] { return amin(x, dims, keepdim); });
}
Tensor& norm_out(Tensor& out, const Tensor& x, double p, IntArrayRef dims, bool keepdim) {
  return composite_out(out, {&x}, "norm", [&] {
    Tensor r = norm(x, p, dims, keepdim);  // its input checks first
    check_out_dtype(out, r.dtype());
    return r;
  });
}

Tensor& softmax_out(Tensor& out, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_like_out(&softmax, "softmax", out, x, dim, dtype);
}
Tensor& log_softmax_out(Tensor& out, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_like_out(&log_softmax, "log_softmax", out, x, dim, dtype);
}

namespace {

// torch's whole-tensor max/min into out= run their kernel even over an empty input (max(x) raises), which leaves
// the fold's identity: x's dtype's lowest/highest value, -inf/inf for the floating types.
Tensor whole_extremum(bool is_max, const Tensor& x) {
  if (x.numel() > 0) return is_max ? max(x) : min(x);
  check_not_float8(x, is_max ? "max_all" : "min_all");
  return full({}, extremum_identity(is_max, x.dtype()), x.options());
}

}  // namespace

Tensor& max_out(Tensor& out, const Tensor& x) {
  return composite_out(out, {&x}, "max", [&] { return whole_extremum(true, x); });
}
Tensor& min_out(Tensor& out, const Tensor& x) {
  return composite_out(out, {&x}, "min", [&] { return whole_extremum(false, x); });
}

Tensor& var_out(Tensor& out, const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  return spread_out(false, out, x, dims, correction, keepdim);
}
Tensor& std_out(Tensor& out, const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  return spread_out(true, out, x, dims, correction, keepdim);
}

Tensor& logsumexp_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim) {
  EMBER_CHECK(is_floating_point(out.dtype()), Error, "logsumexp(): Expected floating point type for result tensor, "
              "but got: ", legacy_name(out.dtype()));
  return composite_out(out, {&x}, "logsumexp", [&] { return logsumexp(x.to(out.dtype()), dims, keepdim); });
}

std::pair<Tensor&, Tensor&> max_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim, bool keepdim) {
  return extremum_dim_out(true, values, indices, x, dim, keepdim);
}
std::pair<Tensor&, Tensor&> min_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim, bool keepdim) {
  return extremum_dim_out(false, values, indices, x, dim, keepdim);
}

Tensor& all_out(Tensor& out, const Tensor& x, OptionalIntArrayRef dims, bool keepdim) {
  return truth_out("all", out, [&] { return all(x, dims, keepdim); });
}
Tensor& any_out(Tensor& out, const Tensor& x, OptionalIntArrayRef dims, bool keepdim) {
  return truth_out("any", out, [&] { return any(x, dims, keepdim); });
}

Tensor& argmax_out(Tensor& out, const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  Tensor r = argmax(x, dim, keepdim);  // its input checks first, as torch
  check_out_dtype(out, kInt64);
  return write_plain(out, r);
}
Tensor& argmin_out(Tensor& out, const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  Tensor r = argmin(x, dim, keepdim);
  check_out_dtype(out, kInt64);
  return write_plain(out, r);
}

}  // namespace ember

// Reductions: dim handling, dtype rules and accumulator setup; the folding is in cpu/reduce_kernels.
#include "../core/autocast_policy.h"
#include "ember/sparse.h"
#include "ember/reduce.h"

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "../dispatch/reduce_all.h"
#include "reduction_support.h"
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/type_promotion.h"

namespace ember {

void check_not_float8(const Tensor& x, const char* kernel, ScalarType dtype) {
  if (!is_float8(dtype)) return;
  std::string name = kernel;
  if (x.device().is_cuda()) name = name.substr(0, name.find("_cpu")) + "_cuda";
  throw NotImplementedError(str("\"", name, "\" not implemented for '", legacy_name(dtype), "'"));
}

Scalar extremum_identity(bool is_max, ScalarType t) {
  if (t == kBool) return !is_max;
  if (is_floating_point(t)) return is_max ? -INFINITY : INFINITY;
  return visit_dtype(t, [&]<typename T>(T) {
    using Limits = std::numeric_limits<T>;
    if constexpr (std::is_integral_v<T>) return Scalar(int64_t(is_max ? Limits::lowest() : Limits::max()));
    else return Scalar(0);  // not reached: floating types are handled above
  });
}

namespace {

// Which dims a reduction folds: all when `dims` is empty, as torch's dim=None or dim=().
struct ReducedDims {
  DimVector keep_sizes;  // input sizes with reduced dims set to 1
  DimVector out_sizes;   // keep_sizes without the reduced dims (unless keepdim)
  int64_t count = 1;     // elements folded into each output
};

ReducedDims reduced_dims(const Tensor& x, IntArrayRef dims, bool keepdim, const char* name, bool nonempty) {
  if (x.is_quantized()) throw_quantized_unsupported(x.dtype());  // before an empty input's shortcut
  if (x.has_sparse_layout()) throw_sparse_unsupported(x, name);
  int64_t n = x.dim();
  EMBER_CHECK(!(nonempty && dims.empty() && x.numel() == 0), Error, name,
              "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
              "'dim' argument.");
  std::vector<bool> reduce(size_t(std::max<int64_t>(n, 1)), dims.empty());
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, n);
    EMBER_CHECK(!reduce[size_t(w)], Error, "dim ", w, " appears multiple times in the list of dims");
    reduce[size_t(w)] = true;
  }
  ReducedDims r;
  for (int64_t i = 0; i < n; ++i) {
    int64_t size = x.sizes()[size_t(i)];
    if (reduce[size_t(i)]) {
      EMBER_CHECK(!nonempty || size != 0, IndexError, name, "(): Expected reduction dim ", i,
                  " to have non-zero size.");
      r.count *= size;
      r.keep_sizes.push_back(1);
      if (keepdim) r.out_sizes.push_back(1);
    } else {
      r.keep_sizes.push_back(size);
      r.out_sizes.push_back(size);
    }
  }
  return r;
}

// Folds x into accumulators (float64 for floating inputs, int64 otherwise) shaped keep_sizes.
Tensor accumulate(ReduceOp op, const Tensor& x, const ReducedDims& r) {
  ScalarType acc_dtype = x.is_floating_point() ? kFloat64 : kInt64;
  Tensor acc = empty(r.keep_sizes, x.options().with_dtype(acc_dtype));
  switch (op) {
    case ReduceOp::Sum: case ReduceOp::Any: acc.fill_(0); break;
    case ReduceOp::Prod: case ReduceOp::All: acc.fill_(1); break;
    case ReduceOp::Max: acc.fill_(acc_dtype == kFloat64 ? Scalar(-INFINITY) : Scalar(INT64_MIN)); break;
    case ReduceOp::Min: acc.fill_(acc_dtype == kFloat64 ? Scalar(INFINITY) : Scalar(INT64_MAX)); break;
  }
  // A floating product rounds at each step, so its order matters: torch folds an expanded dim in its place
  // (Ember's plan would put it innermost), as a copy of the input does.
  bool expanded = false;
  for (int64_t d = 0; d < x.dim(); ++d) expanded |= x.strides()[size_t(d)] == 0 && x.sizes()[size_t(d)] > 1;
  Tensor input = op == ReduceOp::Prod && x.is_floating_point() && expanded ? x.contiguous() : x;
  kernels::reduce[x.device()](op, acc.expand(x.sizes()), input);
  return acc;
}

Tensor reduced_result(const Tensor& acc, const ReducedDims& r,
                      ScalarType dtype) { return acc.to(dtype).view(r.out_sizes); }

// The whole of x reduced in one pass where its backend has one (kernels::reduce_all); undefined otherwise.
Tensor reduce_whole(ReduceOp op, const Tensor& x, const ReducedDims& r, ScalarType dtype, double divisor = 1) {
  if (r.count != x.numel() || x.numel() == 0) return {};
  Tensor out = kernels::reduce_all[x.device()](op, x, dtype, divisor);
  return out.defined() ? out.view(r.out_sizes) : out;
}

ScalarType integral_to_long(ScalarType t) { return is_floating_point(t) ? t : kInt64; }

Tensor sum_like(ReduceOp op, const char* name, const Tensor& x, IntArrayRef dims, bool keepdim,
                std::optional<ScalarType> dtype) {
  Tensor input = dtype ? x.to(*dtype) : x;
  ReducedDims r = reduced_dims(input, dims, keepdim, name, false);
  if (input.numel() > 0) check_not_float8(input, op == ReduceOp::Sum ? "sum_cpu" : "prod_out_cpu");
  ScalarType out = dtype.value_or(integral_to_long(x.dtype()));
  if (Tensor whole = reduce_whole(op, input, r, out); whole.defined()) return whole;
  return reduced_result(accumulate(op, input, r), r, out);
}

// kernel: torch's, named in its float8 error.
Tensor extremum(ReduceOp op, const char* name, const char* kernel, const Tensor& x, IntArrayRef dims, bool keepdim) {
  ReducedDims r = reduced_dims(x, dims, keepdim, name, true);
  if (x.numel() > 0) check_not_float8(x, kernel);
  if (Tensor whole = reduce_whole(op, x, r, x.dtype()); whole.defined()) return whole;
  return reduced_result(accumulate(op, x, r), r, x.dtype());
}

Tensor logical(ReduceOp op, const char* name, const Tensor& x, IntArrayRef dims, bool keepdim) {
  ReducedDims r = reduced_dims(x, dims, keepdim, name, false);
  Tensor nonzero = x.dtype() == kBool ? x : ne(x, wrapped_scalar(0));
  return reduced_result(accumulate(op, nonzero, r), r, x.dtype() == kUInt8 ? kUInt8 : kBool);
}

}  // namespace

int64_t reduced_count(IntArrayRef sizes, IntArrayRef dims) {
  int64_t n = 1;
  if (dims.empty()) {
    for (int64_t s : sizes) n *= s;
    return n;
  }
  for (int64_t d : dims) n *= sizes.empty() ? 1 : sizes[size_t(wrap_dim(d, int64_t(sizes.size())))];
  return n;
}

Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST_FP32_DTYPE(kCUDA, sum, x, dtype, dims, keepdim);
  if (x.has_sparse_layout()) [[unlikely]] return sparse_sum(x, dims, keepdim, dtype);
  Tensor r = autograd::untracked([&] { return sum_like(ReduceOp::Sum, "sum", x, dims, keepdim, dtype); });
  if (autograd::needs_grad({&x})) autograd::record_sum(r, x, dims, keepdim);
  return r;
}

Tensor prod(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST_FP32_DTYPE(kCUDA, prod, x, dtype, dims, keepdim);
  EMBER_AUTOCAST(fp32, kCPU, prod, x, dims, keepdim, dtype);
  Tensor r = autograd::untracked([&] { return sum_like(ReduceOp::Prod, "prod", x, dims, keepdim, dtype); });
  if (autograd::needs_grad({&x})) autograd::record_prod(r, x, dims, keepdim);
  return r;
}

namespace {

Tensor mean_impl(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  ScalarType out = dtype.value_or(x.dtype());
  EMBER_CHECK(is_floating_point(out), Error, "mean(): could not infer output dtype. ",
              dtype ? "Optional" : "Input", " dtype must be either a floating point or complex dtype. Got: ",
              legacy_name(out));
  // torch sums a half-precision mean in float32 from the original input (not from its cast to half)
  bool half = out == kFloat16 || out == kBFloat16;
  Tensor input = x.dtype() == out ? x : x.to(half ? kFloat32 : out);
  ReducedDims r = reduced_dims(input, dims, keepdim, "mean", false);
  check_not_float8(x, x.numel() > 0 ? "sum_cpu" : "div_cpu_reduced_float", out);  // torch's sum, then its division
  if (Tensor whole = reduce_whole(ReduceOp::Sum, input, r, out, double(r.count)); whole.defined()) return whole;
  Tensor acc = accumulate(ReduceOp::Sum, input, r);
  div_out(acc, acc, wrapped_scalar(double(r.count)));  // 0/0 gives nan for empty inputs, as torch
  return reduced_result(acc, r, out);
}

}  // namespace

Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  Tensor r = autograd::untracked([&] { return mean_impl(x, dims, keepdim, dtype); });
  if (autograd::needs_grad({&x})) autograd::record_mean(r, x, dims, keepdim);
  return r;
}

namespace {

Tensor extremum_op(bool is_max, const char* name, const char* kernel, const char* node, const Tensor& x,
                   IntArrayRef dims, bool keepdim) {
  ReduceOp op = is_max ? ReduceOp::Max : ReduceOp::Min;
  Tensor r = autograd::untracked([&] { return extremum(op, name, kernel, x, dims, keepdim); });
  if (autograd::needs_grad({&x})) autograd::record_extremes(node, r, x, dims, keepdim);
  return r;
}

}  // namespace

Tensor amax(const Tensor& x, IntArrayRef dims, bool keepdim) {
  return extremum_op(true, "amax", "max_values_cpu", "AmaxBackward0", x, dims, keepdim);
}
Tensor amin(const Tensor& x, IntArrayRef dims, bool keepdim) {
  return extremum_op(false, "amin", "min_values_cpu", "AminBackward0", x, dims, keepdim);
}
Tensor max(const Tensor& x) { return extremum_op(true, "max", "max_all", "MaxBackward1", x, {}, false); }
Tensor min(const Tensor& x) { return extremum_op(false, "min", "min_all", "MinBackward1", x, {}, false); }
namespace {

// all/any over dims (none: every dim); an empty list reduces nothing: each element's truth, as torch.
Tensor all_or_any(ReduceOp op, const char* name, const Tensor& x, OptionalIntArrayRef dims, bool keepdim) {
  if (dims.has_value() && (*dims).empty()) {
    Tensor truth = ne(x, wrapped_scalar(0));
    return x.dtype() == kUInt8 ? truth.to(kUInt8) : truth;
  }
  return autograd::untracked([&] { return logical(op, name, x, dims.has_value() ? *dims : IntArrayRef(), keepdim); });
}

}  // namespace

Tensor all(const Tensor& x, OptionalIntArrayRef dims, bool keepdim) { return all_or_any(ReduceOp::All, "all", x, dims, keepdim); }
Tensor any(const Tensor& x, OptionalIntArrayRef dims, bool keepdim) { return all_or_any(ReduceOp::Any, "any", x, dims, keepdim); }

namespace {

// Values and indices of the extreme along `dim` (the flattened tensor when dim is nullopt).
std::pair<Tensor, Tensor> arg_extremum(bool is_max, const char* name, const Tensor& x, std::optional<int64_t> dim,
                                       bool keepdim) {
  Tensor input = dim ? x : x.reshape({-1});
  int64_t d = dim ? wrap_dim(*dim, x.dim()) : 0;
  const int64_t dims[1] = {d};
  ReducedDims r = reduced_dims(input, input.dim() == 0 ? IntArrayRef() : IntArrayRef(dims, 1), keepdim, name, true);
  if (x.numel() > 0 && is_float8(x.dtype())) check_not_float8(x, str(name, "_cpu").c_str());  // no string otherwise
  Tensor rows = input.dim() == 0 ? input.reshape({1, 1}) : input.movedim({d}, {-1}).contiguous();
  int64_t n = rows.dim() == 0 ? 1 : rows.sizes().back();
  rows = rows.reshape({-1, n});
  Tensor values = empty({rows.sizes()[0]}, x.options());
  Tensor indices = empty({rows.sizes()[0]}, x.options().with_dtype(kInt64));
  kernels::arg_extremum[x.device()](is_max, rows, values, indices);
  DimVector out = dim ? r.out_sizes : (keepdim ? DimVector(static_cast<size_t>(x.dim()), 1) : DimVector{});
  return {values.view(out), indices.view(out)};
}

}  // namespace

std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  auto r = autograd::untracked([&] { return arg_extremum(true, "max", x, dim, keepdim); });
  if (autograd::needs_grad({&x})) autograd::record_max_dim("MaxBackward0", r.first, r.second, x, dim, keepdim);
  return r;
}

std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  auto r = autograd::untracked([&] { return arg_extremum(false, "min", x, dim, keepdim); });
  if (autograd::needs_grad({&x})) autograd::record_max_dim("MinBackward0", r.first, r.second, x, dim, keepdim);
  return r;
}
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CHECK(x.dtype() != kBool, Error, "argmax(): does not support bool input");
  return autograd::untracked([&] { return arg_extremum(true, "argmax", x, dim, keepdim).second; });
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CHECK(x.dtype() != kBool, Error, "argmin(): does not support bool input");
  return autograd::untracked([&] { return arg_extremum(false, "argmin", x, dim, keepdim).second; });
}

}  // namespace ember

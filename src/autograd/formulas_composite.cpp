// Derivatives of ops Ember builds from others, recorded as one node with torch's name.
#include <cmath>

#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

namespace {

Tensor zero_where(const Tensor& mask, const Tensor& g) { return where(mask, zeros_like(g), g); }

}  // namespace

void record_clamp(const Tensor& r, const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  bool numbers = (!min || min->impl()->is_wrapped_number) && (!max || max->impl()->is_wrapped_number);
  const Tensor lo = min.value_or(Tensor()), hi = max.value_or(Tensor());
  // x's gradient passes only where min <= x <= max hold (so not at a NaN x), as torch
  auto inside = [](const Tensor& x, const Tensor& lo, const Tensor& hi) {
    Tensor in = ones_like(x, kBool);
    if (lo.defined()) in = logical_and(in, ge(x, lo));
    if (hi.defined()) in = logical_and(in, le(x, hi));
    return in;
  };
  if (numbers) {  // ClampBackward1
    record("ClampBackward1", r, {&x}, {&x, &lo, &hi}, [inside](const BackwardContext& c) {
      const Tensor& g = c.grads[0];
      return TensorList{where(inside(c.saved[0], c.saved[1], c.saved[2]), g, zeros_like(g))};
    });
    return;
  }
  record("ClampBackward0", r, {&x, &lo, &hi}, {&x, &lo, &hi}, [inside](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0], &lo = c.saved[1], &hi = c.saved[2];
    Tensor zero = zeros_like(g);
    // where min > max the result is max: its gradient goes to max, none to min (torch's rule)
    bool both = lo.defined() && hi.defined();
    Tensor lo_takes = lo.defined() ? (both ? logical_and(lt(x, lo), lt(lo, hi)) : lt(x, lo)) : Tensor();
    Tensor hi_takes = hi.defined() ? (both ? logical_or(gt(x, hi), lt(hi, lo)) : gt(x, hi)) : Tensor();
    return TensorList{where(inside(x, lo, hi), g, zero), lo.defined() ? where(lo_takes, g, zero) : Tensor(),
                      hi.defined() ? where(hi_takes, g, zero) : Tensor()};
  });
}

void record_lerp(const Tensor& r, const Tensor& start, const Tensor& end, const Tensor& weight) {
  if (weight.impl()->is_wrapped_number) {
    double w = weight.item().to_double();
    record("LerpBackward0", r, {&start, &end}, {}, [w](const BackwardContext& c) {
      return TensorList{c.grads[0] * (1.0 - w), c.grads[0] * w};
    });
    return;
  }
  record("LerpBackward1", r, {&start, &end, &weight}, {&start, &end, &weight}, [](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &s = c.saved[0], &e = c.saved[1], &w = c.saved[2];
    return TensorList{mul(g, sub(wrapped_scalar(1), w)), mul(g, w), c.needs(2) ? mul(g, sub(e, s)) : Tensor()};
  });
}

void record_nan_to_num(const Tensor& r, const Tensor& x) {
  record("NanToNumBackward0", r, {&x}, {&x}, [](const BackwardContext& c) {
    return TensorList{zero_where(logical_not(isfinite(c.saved[0])), c.grads[0])};
  });
}

void record_softplus(const Tensor& r, const Tensor& x, double beta, double threshold) {
  record("SoftplusBackward0", r, {&x}, {&x}, [beta, threshold](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0];
    Tensor bx = x * beta;
    return TensorList{where(gt(bx, wrapped_scalar(threshold)), g, mul(g, sigmoid(bx)))};
  });
}

namespace {

// Gradient of var (2 / (N - correction) g (x - mean), unclamped: N - correction <= 0 gives inf, nan or negative
// gradients, except over all dims (none given), where torch gives g inf, or g nan where x is its mean) or std (var's
// for g / (2 std), 0 where std is 0, as torch); r is the var/std result.
Tensor var_std_grad(bool is_std, const Tensor& g, const Tensor& x, const Tensor& r, IntArrayRef d, double correction,
                    bool keepdim) {
  double dof = double(reduced_count(x.sizes(), d)) - correction;
  Tensor scale = keep_dims(g, x.sizes(), d, keepdim);
  if (is_std) {
    Tensor std = keep_dims(r, x.sizes(), d, keepdim);
    scale = zero_where(eq(std, wrapped_scalar(0)), div(scale, std * 2));
  }
  Tensor m = mean(x, d, true);
  if (dof <= 0 && (d.empty() || x.dim() == 0)) {
    return mul(scale, where(eq(x, m), wrapped_scalar(NAN), wrapped_scalar(INFINITY)).to(x.dtype()));
  }
  return mul(scale * (2.0 / dof), sub(x, m));
}

}  // namespace

// var's gradient needs only the input: torch saves no result, so an in-place op on the result may follow.
void record_var_std(bool is_std, const Tensor& r, const Tensor& x, IntArrayRef dims, double correction, bool keepdim) {
  auto formula = [is_std, d = DimVector(dims), correction, keepdim](const BackwardContext& c) {
    return TensorList{var_std_grad(is_std, c.grads[0], c.saved[0], is_std ? c.saved[1] : Tensor(), d, correction, keepdim)};
  };
  if (is_std) record("StdBackward0", r, {&x}, {&x, &r}, formula);
  else record("VarBackward0", r, {&x}, {&x}, formula);
}

void record_var_std_mean(bool is_std, const Tensor& first, const Tensor& mean_out, const Tensor& x, IntArrayRef dims,
                         double correction, bool keepdim) {
  // Two outputs: var (or std), and the mean, whose gradient spreads evenly.
  auto formula = [is_std, d = DimVector(dims), correction, keepdim](const BackwardContext& c) {
    const Tensor& x = c.saved[0];
    Tensor grad = var_std_grad(is_std, c.grads[0], x, is_std ? c.saved[1] : Tensor(), d, correction, keepdim);
    Tensor g_mean = keep_dims(c.grads[1], x.sizes(), d, keepdim) * (1.0 / double(reduced_count(x.sizes(), d)));
    return TensorList{add(grad, g_mean.expand(x.sizes()))};
  };
  if (is_std) record_multi("StdMeanBackward0", {first, mean_out}, {&x}, {&x, &first}, formula);
  else record_multi("VarMeanBackward0", {first, mean_out}, {&x}, {&x}, formula);
}

Tensor norm_backward(const Tensor& grad, const Tensor& x, const Tensor& norm, double p, IntArrayRef dims, bool keepdim) {
  Tensor g = keep_dims(grad, x.sizes(), dims, keepdim), n = keep_dims(norm, x.sizes(), dims, keepdim);
  if (p == 0) return zeros_like(x);
  if (p == 1) return mul(g, sign(x));
  if (std::isinf(p)) {  // split evenly among the elements of largest (smallest) magnitude, or the NaNs (torch's)
    Tensor ax = abs(x);
    Tensor hit = logical_or(eq(ax, n), isnan(ax));
    DimVector all(dims);
    if (all.empty()) for (int64_t i = 0; i < x.dim(); ++i) all.push_back(i);
    return mul(sign(x), mul(div(g, sum(hit, all, true)), hit));
  }
  Tensor zero_norm = eq(n, wrapped_scalar(0));
  Tensor local = p == 2 ? div(x, n) : div(mul(sign(x), pow(abs(x), wrapped_scalar(p - 1))), pow(n, wrapped_scalar(p - 1)));
  if (p < 1) local = zero_where(eq(x, wrapped_scalar(0)), local);  // |x|^(p-1) is inf at 0: torch gives 0 there
  return zero_where(zero_norm.expand(x.sizes()), mul(g, local));
}

void record_norm(const Tensor& r, const Tensor& x, double p, IntArrayRef dims, bool keepdim, const char* node) {
  record(node, r, {&x}, {&x, &r}, [p, d = DimVector(dims), keepdim](const BackwardContext& c) {
    return TensorList{norm_backward(c.grads[0], c.saved[0], c.saved[1], p, d, keepdim)};
  });
}

void record_logsumexp(const Tensor& r, const Tensor& x, IntArrayRef dims, bool keepdim) {
  record("LogsumexpBackward0", r, {&x}, {&x, &r}, [d = DimVector(dims), keepdim](const BackwardContext& c) {
    const Tensor &x = c.saved[0];
    return TensorList{mul(keep_dims(c.grads[0], x.sizes(), d, keepdim), exp(sub(x, keep_dims(c.saved[1], x.sizes(), d, keepdim))))};
  });
}

}  // namespace ember::autograd

// Derivatives of the math ops (src/ops/math_ops.cpp, linalg_norms.cpp), with torch's node names.
#include <cmath>
#include <limits>

#include "ember/creation.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

namespace {

Tensor scalar(double v) { return wrapped_scalar(v); }

// logcumsumexp from the end of dim backwards (the reversed slices' running logaddexp).
Tensor reverse_logcumsumexp(const Tensor& x, int64_t dim) {
  int64_t n = x.sizes()[size_t(dim)];
  Tensor reversed = x.index_select(dim, arange(n - 1, -1, -1, TensorOptions(kInt64).device(x.device())));
  Tensor r = logcumsumexp(reversed, dim);
  return r.index_select(dim, arange(n - 1, -1, -1, TensorOptions(kInt64).device(x.device())));
}

}  // namespace

void record_logit(const Tensor& r, const Tensor& x, std::optional<double> eps) {
  record("LogitBackward0", r, {&x}, {&x}, [eps](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0];
    Tensor grad = div(g, mul(x, rsub(x, scalar(1))));
    bool clamped = eps && *eps >= 0;  // outside [eps, 1 - eps] the clamp passes no gradient; without eps, NaN outside [0, 1]
    double lo = clamped ? *eps : 0, hi = clamped ? 1 - *eps : 1;
    Tensor outside = logical_or(lt(x, scalar(lo)), gt(x, scalar(hi)));
    return TensorList{where(outside, scalar(clamped ? 0.0 : std::nan("")).to(grad.dtype()), grad)};
  });
}

void record_nansum(const Tensor& r, const Tensor& x, IntArrayRef dims, bool keepdim) {
  record("NansumBackward0", r, {&x}, {&x}, [d = DimVector(dims), keepdim](const BackwardContext& c) {
    const Tensor& x = c.saved[0];
    Tensor g = keep_dims(c.grads[0], x.sizes(), d, keepdim).expand(x.sizes());
    return TensorList{where(isnan(x), zeros_like(g), g)};
  });
}

// torch's formula: the positive and negative parts of the gradient each through a reversed logcumsumexp.
void record_logcumsumexp(const Tensor& r, const Tensor& x, int64_t dim) {
  record("LogcumsumexpBackward0", r, {&x}, {&x, &r}, [dim](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0], &r = c.saved[1];
    if (x.dim() == 0) return TensorList{g};
    Tensor lowest = scalar(std::numeric_limits<double>::lowest()).to(g.dtype());
    Tensor log_abs = log(abs(g));
    Tensor pos = where(gt(g, scalar(0)), log_abs, lowest), neg = where(lt(g, scalar(0)), log_abs, lowest);
    Tensor out_pos = exp(add(reverse_logcumsumexp(sub(pos, r), dim), x));
    Tensor out_neg = exp(add(reverse_logcumsumexp(sub(neg, r), dim), x));
    return TensorList{sub(out_pos, out_neg)};
  });
}

void record_cross(const Tensor& r, const Tensor& a, const Tensor& b, int64_t dim) {
  record("LinalgCrossBackward0", r, {&a, &b}, {&a, &b}, [dim](const BackwardContext& c) {
    const Tensor& g = c.grads[0];
    return TensorList{c.needs(0) ? linalg_cross(c.saved[1], g, dim) : Tensor(),
                      c.needs(1) ? linalg_cross(g, c.saved[0], dim) : Tensor()};
  });
}

void record_dist(const Tensor& r, const Tensor& a, const Tensor& b, double p) {
  record("DistBackward0", r, {&a, &b}, {&a, &b, &r}, [p](const BackwardContext& c) {
    Tensor g = norm_backward(c.grads[0], sub(c.saved[0], c.saved[1]), c.saved[2], p, {}, false);
    return TensorList{g, c.needs(1) ? neg(g) : Tensor()};
  });
}

// Each distance is a p-norm of x1[i] - x2[j]: its gradient summed over j for x1, over i (negated) for x2.
void record_cdist(const Tensor& r, const Tensor& x1, const Tensor& x2, double p) {
  record("CdistBackward0", r, {&x1, &x2}, {&x1, &x2, &r}, [p](const BackwardContext& c) {
    if (c.saved[2].numel() == 0 || c.saved[0].sizes().back() == 0) return TensorList{zeros_like(c.saved[0]), zeros_like(c.saved[1])};
    Tensor diff = sub(c.saved[0].unsqueeze(-2), c.saved[1].unsqueeze(-3));
    Tensor local = norm_backward(c.grads[0], diff, c.saved[2], p, {-1}, false);
    return TensorList{sum(local, {-2}), c.needs(1) ? neg(sum(local, {-3})) : Tensor()};
  });
}

}  // namespace ember::autograd

// Derivatives of batch, layer and group norm. Under create_graph the formulas are ember ops (statistics recomputed
// from the input, so they differentiate again); otherwise two fused kernel passes (gradient sums, then the input's
// gradient), as torch's CPU backward.
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

namespace {

Tensor num(double v) { return wrapped_scalar(v); }

// inv * (gw - mean(gw) - xhat * mean(gw * xhat)) over dims: the gradient through (x - mean) * inv of a normalisation
// whose statistics come from x itself.
Tensor normalized_grad(const Tensor& gw, const Tensor& xhat, const Tensor& inv, IntArrayRef dims) {
  return mul(inv, sub(sub(gw, mean(gw, dims, true)), mul(xhat, mean(mul(gw, xhat), dims, true))));
}

// (x - mean) * invstd over dims, recomputed with ember ops (so create_graph differentiates the statistics too).
std::pair<Tensor, Tensor> normalize(const Tensor& x, IntArrayRef dims, double eps) {
  Tensor mu = mean(x, dims, true);
  Tensor inv = reciprocal(sqrt(add(var(x, dims, 0, true), num(eps))));
  return {mul(sub(x, mu), inv), inv};
}

DimVector dims_except(int64_t ndim, int64_t keep) {
  DimVector d;
  for (int64_t i = 0; i < ndim; ++i) if (i != keep) d.push_back(i);
  return d;
}

// A contiguous (n, c, s) view of t in dtype ct.
Tensor as_3d(const Tensor& t, ScalarType ct, int64_t n, int64_t c, int64_t s) {
  return t.to(ct).contiguous().view({n, c, s});
}

// The kernels' per-channel sums of g and g * x (times w[s] when w is defined).
std::pair<Tensor, Tensor> grad_sums(const Tensor& g3, const Tensor& x3, const Tensor& w) {
  Tensor s1 = empty({x3.size(1)}, x3.options()), s2 = empty({x3.size(1)}, x3.options());
  kernels::norm_grad_sums[x3.device()](g3, x3, w, s1, s2);
  return {s1, s2};
}

Tensor grad_input(const Tensor& g3, const Tensor& x3, const Tensor& w, const Tensor& a, const Tensor& b,
                  const Tensor& e) {
  Tensor dx = empty_like(x3);
  auto flat = [&](const Tensor& t) { return t.expand({x3.size(1)}).contiguous(); };
  kernels::norm_grad_input[x3.device()](g3, x3, w, flat(a), flat(b), flat(e), dx);
  return dx;
}

// dx3 back in x's shape, dtype and (channels-last) layout.
Tensor like(const Tensor& dx3, const Tensor& x) {
  Tensor dx = dx3.view(x.sizes()).to(x.dtype());
  if (x.dim() < 4 || x.is_contiguous() || !is_channels_last_like(x.sizes(), x.strides())) return dx;
  Tensor out = empty_strided(x.sizes(), channels_last_strides(x.sizes()), dx.options());
  out.copy_(dx);
  return out;
}

}  // namespace

void record_batch_norm(const Tensor& result, const Tensor& input, const Tensor& weight, const Tensor& bias,
                       const Tensor& mean_, const Tensor& invstd, bool training, double eps) {
  record("NativeBatchNormBackward0", result, {&input, &weight, &bias}, {&input, &weight, &mean_, &invstd},
         [training, eps](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0], &w = c.saved[1], &mu = c.saved[2], &inv = c.saved[3];
    int64_t ch = x.size(1);
    DimVector bshape(size_t(x.dim()), 1);
    bshape[1] = ch;
    DimVector dims = dims_except(x.dim(), 1);
    TensorList out(3);
    if (is_grad_enabled()) {  // create_graph
      auto [xhat, inv_b] = training ? normalize(x, dims, eps)
                                    : std::pair{mul(sub(x, mu.view(bshape)), inv.view(bshape)), inv.view(bshape)};
      Tensor gw = w.defined() ? mul(g, w.view(bshape)) : g;
      if (c.needs(0)) out[0] = training ? normalized_grad(gw, xhat, inv_b, dims) : mul(gw, inv_b);
      if (c.needs(1)) out[1] = sum(mul(g, xhat), dims);
      if (c.needs(2)) out[2] = sum(g, dims);
      return out;
    }
    ScalarType ct = mu.dtype();
    int64_t n = x.size(0), s = x.numel() / (n * ch);
    Tensor x3 = as_3d(x, ct, n, ch, s), g3 = as_3d(g, ct, n, ch, s);
    auto [sum_dy, sum_dy_x] = grad_sums(g3, x3, Tensor());
    Tensor dot = sub(sum_dy_x, mul(mu, sum_dy));  // sum of g * (x - mean)
    if (!all(isfinite(dot)).item<bool>()) {  // inf * 0 in the shortcut where torch's direct sum is inf: sum directly
      DimVector cshape{1, ch, 1};
      dot = sum(mul(g3, sub(x3, mu.view(cshape))), DimVector{0, 2});
    }
    if (c.needs(0)) {
      Tensor k = w.defined() ? mul(w.to(ct), inv) : inv;
      Tensor b = zeros({1}, x3.options()), e = b;
      if (training) {
        double count = double(n * s);
        b = neg(div(mul(mul(k, mul(inv, inv)), dot), num(count)));
        e = sub(neg(div(mul(k, sum_dy), num(count))), mul(b, mu));
      }
      out[0] = like(grad_input(g3, x3, Tensor(), k, b, e), x);
    }
    if (c.needs(1)) out[1] = mul(dot, inv);
    if (c.needs(2)) out[2] = sum_dy;
    return out;
  });
}

void record_layer_norm(const Tensor& result, const Tensor& input, int64_t normalized_ndim, const Tensor& weight,
                       const Tensor& bias, const Tensor& mean_, const Tensor& rstd, double eps) {
  record("NativeLayerNormBackward0", result, {&input, &weight, &bias}, {&input, &weight, &mean_, &rstd},
         [normalized_ndim, eps](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0], &w = c.saved[1], &mu = c.saved[2], &inv = c.saved[3];
    int64_t lead = x.dim() - normalized_ndim;
    DimVector inner, outer;
    for (int64_t d = 0; d < x.dim(); ++d) (d < lead ? outer : inner).push_back(d);
    TensorList out(3);
    if (is_grad_enabled()) {  // create_graph
      auto [xhat, inv_b] = normalize(x, inner, eps);
      if (c.needs(0)) out[0] = normalized_grad(w.defined() ? mul(g, w) : g, xhat, inv_b, inner);
      if (c.needs(1)) out[1] = sum(mul(g, xhat), outer);
      if (c.needs(2)) out[2] = sum(g, outer);
      return out;
    }
    ScalarType ct = mu.dtype();
    int64_t m = mu.numel(), n = m == 0 ? 0 : x.numel() / m;
    if (m == 0) for (int64_t d = lead; d < x.dim(); ++d) n = d == lead ? x.size(d) : n * x.size(d);
    Tensor x3 = as_3d(x, ct, 1, m, n), g3 = as_3d(g, ct, 1, m, n);
    Tensor w1 = w.defined() ? w.to(ct).contiguous().view({n}) : w;
    if (c.needs(0)) {
      auto [s1, s2] = grad_sums(g3, x3, w1);
      Tensor dot = sub(s2, mul(mu, s1));
      Tensor b = neg(div(mul(mul(inv, mul(inv, inv)), dot), num(double(n))));
      Tensor e = sub(neg(div(mul(inv, s1), num(double(n)))), mul(b, mu));
      out[0] = grad_input(g3, x3, w1, inv, b, e).view(x.sizes()).to(x.dtype());
    }
    if (c.needs(1)) {
      Tensor xhat = empty_like(x3);
      kernels::norm_affine[x3.device()](x3, mu, inv, Tensor(), Tensor(), Tensor(), xhat);
      out[1] = sum(mul(g3, xhat), {0, 1}).view(w.sizes());
    }
    if (c.needs(2)) out[2] = sum(g3, {0, 1}).view(IntArrayRef(x.sizes().data() + lead, size_t(normalized_ndim)));
    return out;
  });
}

void record_group_norm(const Tensor& result, const Tensor& input, int64_t groups, const Tensor& weight,
                       const Tensor& bias, const Tensor& mean_, const Tensor& rstd, double eps) {
  record("NativeGroupNormBackward0", result, {&input, &weight, &bias}, {&input, &weight, &mean_, &rstd},
         [groups, eps](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0], &w = c.saved[1], &mu = c.saved[2], &inv = c.saved[3];
    int64_t n = x.size(0), ch = x.size(1), cg = ch / groups, s = n * ch == 0 ? 0 : x.numel() / (n * ch);
    DimVector bshape(size_t(x.dim()), 1);
    bshape[1] = ch;
    DimVector dims = dims_except(x.dim(), 1);
    TensorList out(3);
    if (is_grad_enabled()) {  // create_graph
      auto [xhat_g, inv_g] = normalize(x.reshape({n, groups, -1}), {2}, eps);
      Tensor gw = (w.defined() ? mul(g, w.view(bshape)) : g).reshape({n, groups, -1});
      Tensor xhat = xhat_g.view(x.sizes());
      if (c.needs(0)) out[0] = normalized_grad(gw, xhat_g, inv_g, {2}).view(x.sizes());
      if (c.needs(1)) out[1] = sum(mul(g, xhat), dims);
      if (c.needs(2)) out[2] = sum(g, dims);
      return out;
    }
    ScalarType ct = mu.dtype();
    Tensor x3 = as_3d(x, ct, 1, n * ch, s), g3 = as_3d(g, ct, 1, n * ch, s);
    auto [sum_dy, sum_dy_x] = grad_sums(g3, x3, Tensor());
    Tensor db = sum_dy.view({n, groups, cg}), ds = sum_dy_x.view({n, groups, cg});
    Tensor r = inv.view({n, groups, 1}), m = mu.view({n, groups, 1});
    Tensor wv = w.defined() ? w.to(ct).view({1, groups, cg}) : ones({1, groups, cg}, x3.options());
    if (c.needs(0)) {
      // dx = r * w * g + b2 * x + c3 per (sample, group) over its cg * s elements.
      double count = double(cg * s);
      Tensor ds_g = sum(mul(ds, wv), {2}, true), db_g = sum(mul(db, wv), {2}, true);
      Tensor b2 = div(mul(sub(mul(db_g, m), ds_g), mul(r, mul(r, r))), num(count));
      Tensor c3 = sub(neg(mul(b2, m)), div(mul(db_g, r), num(count)));
      Tensor full = ones({n, groups, cg}, x3.options());
      auto flat = [&](const Tensor& t) { return mul(t, full).view({n * ch}); };
      out[0] = like(grad_input(g3, x3, Tensor(), flat(mul(r, wv)), flat(b2), flat(c3)), x);
    }
    if (c.needs(1)) out[1] = sum(mul(sub(ds, mul(db, m)), r), {0}).view({ch});
    if (c.needs(2)) out[2] = sum(db, {0}).view({ch});
    return out;
  });
}

}  // namespace ember::autograd

// Derivatives of the nn losses (ember::nn::functional), with torch's node names.
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/scatter.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

namespace {

// nll_loss's gradient in logp (N, C, S): -w[t] g at each target (scaled by 1 / total_weight for Mean).
Tensor nll_dense(const Tensor& g, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                 Reduction reduction, const Tensor& total_weight, IntArrayRef ncs) {
  if (is_grad_enabled()) {  // create_graph: linear in g, so g's own graph carries on
    Tensor unit = untracked([&] {
      return nll_dense(ones({}, g.options()), target, weight, ignore_index, Reduction::Sum, ones({}, g.options()), ncs);
    });
    if (reduction == Reduction::Mean) unit = div(unit, total_weight);
    return mul(unit, reduction == Reduction::None ? g.reshape({ncs[0], 1, ncs[2]}) : g);
  }
  Tensor coef = empty({ncs[0], ncs[2]}, g.options());
  Tensor dense = empty(ncs, g.options());
  kernels::nll_loss_backward[g.device().type](g.contiguous(), target, weight, ignore_index, reduction, total_weight,
                                              coef, dense);
  return dense;
}

// The gradient between cross_entropy's two nodes: a stand-in the LogSoftmaxBackward0 node recognises, with the
// per-row coefficients that describe it.
struct FusedGradient {
  const TensorImpl* stand_in = nullptr;
  Tensor coef;
};

}  // namespace

void record_nll_loss(const char* name, const Tensor& result, const Tensor& logp, const Tensor& target,
                     const Tensor& weight, int64_t ignore_index, Reduction reduction, const Tensor& total_weight) {
  record(name, result, {&logp}, {&target, &weight, &total_weight},
         [ignore_index, reduction, sizes = DimVector(logp.sizes())](const BackwardContext& c) {
           const Tensor& t = c.saved[0];
           DimVector ncs{t.sizes()[0], sizes.size() == 1 ? sizes[0] : sizes[1], t.sizes()[1]};
           Tensor d = nll_dense(c.grads[0], t, c.saved[1], ignore_index, reduction, c.saved[2], ncs);
           return TensorList{d.view(sizes)};
         });
}

void record_cross_entropy(const Tensor& result, const Tensor& x, const Tensor& lse, const Tensor& target,
                          const Tensor& weight, int64_t ignore_index, Reduction reduction, const Tensor& total_weight) {
  auto fused = std::make_shared<FusedGradient>();
  // The log_softmax output is never materialised: the node's output is a stand-in of its shape and dtype.
  Tensor logp = zeros({}, x.options()).expand(x.sizes());
  record("LogSoftmaxBackward0", logp, {&x}, {&x, &lse, &target}, [fused](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &x = c.saved[0], &lse = c.saved[1];
    if (fused->stand_in == g.impl()) {
      Tensor gx = empty(x.sizes(), x.options());
      kernels::cross_entropy_backward[x.device().type](x.contiguous(), lse, c.saved[2].view({-1}), fused->coef, gx);
      *fused = {};
      return TensorList{gx};
    }
    // create_graph: log_softmax again, so the second derivative sees lse's dependence on x
    Tensor y = is_grad_enabled() ? log_softmax(x, 1) : sub(x, lse.unsqueeze(1));
    return TensorList{sub(g, mul(exp(y), sum(g, {1}, true)))};
  });
  record("NllLossBackward0", result, {&logp}, {&target, &weight, &total_weight},
         [fused, ignore_index, reduction, sizes = DimVector(x.sizes())](const BackwardContext& c) {
           const Tensor &g = c.grads[0], &t = c.saved[0];
           DimVector ncs{sizes[0], sizes[1], 1};
           if (is_grad_enabled()) {
             return TensorList{nll_dense(g, t, c.saved[1], ignore_index, reduction, c.saved[2], ncs).view(sizes)};
           }
           Tensor coef = empty({sizes[0], 1}, g.options());
           kernels::nll_loss_backward[g.device().type](g.contiguous(), t, c.saved[1], ignore_index, reduction, c.saved[2],
                                                       coef, Tensor());
           Tensor stand_in = zeros({}, g.options()).expand(sizes);
           *fused = {stand_in.impl(), coef};
           return TensorList{stand_in};
         });
}

void record_pointwise_loss(const char* name, const Tensor& result, const Tensor& x, const Tensor& y,
                           Reduction reduction, LossDerivative dx, LossDerivative dy) {
  auto formula = [reduction, dx, dy](const BackwardContext& c) {
    const Tensor &x = c.saved[0], &y = c.saved[1];
    Tensor g = c.grads[0];
    if (reduction == Reduction::Mean) g = div(g, wrapped_scalar(x.numel()));
    Tensor gx = c.needs(0) ? mul(dx(x, y), g) : Tensor();
    if (!c.needs(1)) return TensorList{gx, Tensor()};
    return TensorList{gx, dy ? mul(dy(x, y), g) : neg(mul(dx(x, y), g))};
  };
  record(name, result, {&x, &y}, {&x, &y}, formula);
}

Tensor multi_margin_terms(const Tensor& x, const Tensor& target, int64_t p, double margin, const Tensor& weight,
                          bool derivative) {
  Tensor z = add(sub(x, gather(x, 1, target)), wrapped_scalar(margin));
  Tensor at_target = eq(arange(x.sizes()[1], target.options()).view({1, -1}), target);
  Tensor active = logical_and(gt(z, wrapped_scalar(0)), logical_not(at_target));
  Tensor h = derivative ? (p == 1 ? ones_like(z) : mul(z, wrapped_scalar(2))) : (p == 1 ? z : mul(z, z));
  h = where(active, h, wrapped_scalar(0));
  if (weight.defined()) h = mul(h, index_select(weight, 0, target.view({-1})).unsqueeze(1));
  return div(h, wrapped_scalar(x.sizes()[1]));
}

void record_multi_margin(const Tensor& result, const Tensor& input, const Tensor& target, int64_t p, double margin,
                         const Tensor& weight, Reduction reduction) {
  record("MultiMarginLossBackward0", result, {&input}, {&input, &target, &weight},
         [p, margin, reduction](const BackwardContext& c) {
           const Tensor &input = c.saved[0], &t = c.saved[1];
           Tensor x = input.dim() == 2 ? input : input.reshape({1, -1});
           Tensor d = multi_margin_terms(x, t, p, margin, c.saved[2], true);
           Tensor at_target = eq(arange(x.sizes()[1], t.options()).view({1, -1}), t);
           d = sub(d, mul(at_target.to(d.dtype()), sum(d, {1}, true)));  // x[t] enters every term with a minus
           Tensor g = reduction == Reduction::None ? c.grads[0].reshape({-1, 1}) : c.grads[0];
           if (reduction == Reduction::Mean) g = div(g, wrapped_scalar(x.sizes()[0]));
           return TensorList{mul(d, g).view(input.sizes())};
         });
}

void record_clamp_min(const Tensor& result, const Tensor& x, double min) {
  record("ClampMinBackward0", result, {&x}, {&x}, [min](const BackwardContext& c) {
    return TensorList{where(ge(c.saved[0], wrapped_scalar(min)), c.grads[0], wrapped_scalar(0))};
  });
}

}  // namespace ember::autograd

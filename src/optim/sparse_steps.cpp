// Optimizer steps for sparse gradients (nn.Embedding(sparse=True)): torch's _single_tensor_sgd, _adagrad and
// _sparse_adam math op by op, touching only the rows the gradient holds.
#include <cmath>

#include "ember/ops.h"
#include "ember/optim/optimizer.h"
#include "ember/sparse.h"
#include "ember/type_promotion.h"
#include "../sparse/sparse_internal.h"
#include "state.h"

namespace ember::optim {
namespace {

using detail::bump_step;
using detail::lazy;
using detail::zero_step;

// A sparse tensor of (coalesced) grad's size at its coordinates with `values` (torch's _make_sparse).
Tensor at_entries(const Tensor& grad, const Tensor& values) {
  return sparse_detail::make_coo(grad._indices(), values, DimVector(grad.sizes()), true);
}

}  // namespace

void SGD::step_sparse(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  const double lr = o.number("lr"), momentum = o.number("momentum"), weight_decay = o.number("weight_decay");
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor p = params[i], grad = o.flag("maximize") ? neg(grads[i]) : grads[i];
    if (weight_decay != 0) grad = add(grad, p, weight_decay);  // torch's add(sparse, dense) refusal
    if (momentum != 0) {
      Value& slot = state(p)["momentum_buffer"];
      if (!std::holds_alternative<Tensor>(slot)) {
        slot = grad.clone().detach();
      } else {
        Tensor& buf = std::get<Tensor>(slot);
        buf.mul_(momentum).add_(grad, 1 - o.number("dampening"));
      }
      const Tensor& buf = std::get<Tensor>(slot);
      grad = o.flag("nesterov") ? add(grad, buf, momentum) : buf;
    }
    p.add_(grad, -lr);
  }
}

void Adagrad::step_sparse(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor p = params[i];
    Dict& s = state(p);
    const double step = bump_step(lazy(s, "step", zero_step));
    Tensor sum = lazy(s, "sum", [&] { return full_like(p, o.number("initial_accumulator_value")); });
    EMBER_CHECK(o.number("weight_decay") == 0, Error, "weight_decay option is not compatible with sparse gradients");
    const double clr = o.number("lr") / (1 + (step - 1) * o.number("lr_decay"));
    // The update is not linear in the gradient: duplicate entries are summed first.
    Tensor grad = coalesce(o.flag("maximize") ? neg(grads[i]) : grads[i]);
    Tensor values = grad._values();
    sum.add_(at_entries(grad, pow(values, wrapped_scalar(2))));
    Tensor std = sparse_mask(sum, grad)._values().sqrt_().add_(o.number("eps"));
    p.add_(at_entries(grad, div(values, std)), -clr);
  }
}

Tensor SparseAdam::step(const std::function<Tensor()>& closure) {
  Tensor loss = evaluate(closure);
  for (const auto& g : param_groups())  // torch checks every grad before changing any parameter
    for (const Tensor& p : group_params(*g))
      EMBER_CHECK(!p.grad().defined() || p.grad().has_sparse_layout(), Error,
                  "SparseAdam does not support dense gradients, please consider Adam instead");
  Optimizer::step();
  return loss;
}

void SparseAdam::step_group(ParamGroup&, const std::vector<Tensor>&, const std::vector<Tensor>&) {
  throw Error("SparseAdam does not support dense gradients, please consider Adam instead");
}

void SparseAdam::step_sparse(ParamGroup& o, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  const double lr = o.number("lr"), beta1 = o.element("betas", 0), beta2 = o.element("betas", 1);
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor p = params[i];
    Dict& s = state(p);
    if (!std::holds_alternative<int64_t>(s["step"])) s["step"] = int64_t(0);  // a Python int in torch's SparseAdam
    Tensor exp_avg = lazy(s, "exp_avg", [&] { return zeros_like(p); });  // copies: a later entry moves the dict's
    Tensor exp_avg_sq = lazy(s, "exp_avg_sq", [&] { return zeros_like(p); });
    const int64_t step = ++std::get<int64_t>(s["step"]);
    Tensor grad = coalesce(o.flag("maximize") ? neg(grads[i]) : grads[i]);
    Tensor values = grad._values();
    if (values.numel() == 0) continue;
    // The moments move only at the gradient's entries: m += (g - m)(1 - beta1), v += (g^2 - v)(1 - beta2).
    Tensor old_avg = sparse_mask(exp_avg, grad)._values();
    Tensor avg_update = sub(values, old_avg).mul_(1 - beta1);
    exp_avg.add_(at_entries(grad, avg_update));
    Tensor old_sq = sparse_mask(exp_avg_sq, grad)._values();
    Tensor sq_update = pow(values, wrapped_scalar(2)).sub_(old_sq).mul_(1 - beta2);
    exp_avg_sq.add_(at_entries(grad, sq_update));
    Tensor numer = avg_update.add_(old_avg);
    Tensor denom = sq_update.add_(old_sq).sqrt_().add_(o.number("eps"));
    const double bias1 = 1 - std::pow(beta1, double(step)), bias2 = 1 - std::pow(beta2, double(step));
    const double step_size = lr * std::sqrt(bias2) / bias1;
    p.add_(at_entries(grad, mul(numer.div_(denom), wrapped_scalar(-step_size))));
  }
}

}  // namespace ember::optim

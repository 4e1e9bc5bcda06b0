#include "ember/optim/optimizer.h"

#include <unordered_set>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/errors.h"

namespace ember::optim {

Optimizer::Optimizer(std::vector<ParamGroup> groups, Options defaults) : defaults_(std::move(defaults)) {
  EMBER_CHECK(!groups.empty(), ValueError, "optimizer got an empty parameter list");
  for (ParamGroup& g : groups) add_param_group(std::move(g));
}

void Optimizer::add_param_group(ParamGroup group) {
  EMBER_CHECK(!group.params.empty(), ValueError, "optimizer got an empty parameter list");
  std::unordered_set<const void*> seen;
  for (const ParamGroup& g : groups_)
    for (const Tensor& p : g.params) seen.insert(p.impl());
  for (const Tensor& p : group.params) {
    EMBER_CHECK(p.defined(), ValueError, "optimizer got an undefined parameter");
    EMBER_CHECK(!p.grad_fn(), ValueError, "can't optimize a non-leaf Tensor");
    EMBER_CHECK(seen.insert(p.impl()).second, ValueError, "some parameters appear in more than one parameter group");
  }
  for (const auto& [k, v] : defaults_) group.options.try_emplace(k, v);
  EMBER_CHECK(group.options["lr"] >= 0, ValueError, "Invalid learning rate: ", group.options["lr"]);
  groups_.push_back(std::move(group));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (const ParamGroup& g : groups_)
    for (const Tensor& p : g.params) {
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (set_to_none) p.set_grad(Tensor());
      else grad.zero_();
    }
}

Tensor Optimizer::step(const std::function<Tensor()>& closure) {
  Tensor loss;
  if (closure) {
    autograd::GradModeGuard enable(true);
    loss = closure();
  }
  autograd::NoGradGuard no_grad;
  for (ParamGroup& g : groups_) {
    std::vector<Tensor> params, grads;
    for (const Tensor& p : g.params)
      if (Tensor grad = p.grad(); grad.defined()) {
        params.push_back(p);
        grads.push_back(grad.contiguous());
      }
    if (!params.empty()) step_group(g, params, grads);
  }
  return loss;
}

SGD::SGD(std::vector<ParamGroup> groups, const functional::SGDOptions& o)
    : Optimizer(std::move(groups), {{"lr", o.lr}, {"momentum", o.momentum}, {"dampening", o.dampening},
                                    {"weight_decay", o.weight_decay}, {"nesterov", o.nesterov}, {"maximize", o.maximize}}) {
  EMBER_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), ValueError,
              "Nesterov momentum requires a momentum and zero dampening");
}

void SGD::step_group(ParamGroup& g, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  Options& o = g.options;
  std::vector<Tensor> bufs;
  for (const Tensor& p : params) bufs.push_back(state(p)["momentum_buffer"]);
  functional::sgd(params, grads, bufs,
                  {o["lr"], o["momentum"], o["dampening"], o["weight_decay"], o["nesterov"] != 0, o["maximize"] != 0});
  if (o["momentum"] != 0)
    for (size_t i = 0; i < params.size(); ++i) state(params[i])["momentum_buffer"] = bufs[i];
}

Adam::Adam(std::vector<ParamGroup> groups, const functional::AdamOptions& o)
    : Optimizer(std::move(groups), {{"lr", o.lr}, {"beta1", o.beta1}, {"beta2", o.beta2}, {"eps", o.eps},
                                    {"weight_decay", o.weight_decay}, {"amsgrad", o.amsgrad}, {"maximize", o.maximize},
                                    {"decoupled_weight_decay", o.decoupled_weight_decay}}) {
  EMBER_CHECK(o.eps >= 0, ValueError, "Invalid epsilon value: ", o.eps);
  EMBER_CHECK(o.beta1 >= 0 && o.beta1 < 1, ValueError, "Invalid beta parameter at index 0: ", o.beta1);
  EMBER_CHECK(o.beta2 >= 0 && o.beta2 < 1, ValueError, "Invalid beta parameter at index 1: ", o.beta2);
  EMBER_CHECK(o.weight_decay >= 0, ValueError, "Invalid weight_decay value: ", o.weight_decay);
}

void Adam::step_group(ParamGroup& g, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  Options& o = g.options;
  const bool amsgrad = o["amsgrad"] != 0;
  std::vector<Tensor> m, v, vmax, steps;
  for (const Tensor& p : params) {
    auto& s = state(p);
    if (!s.count("step")) {  // lazy state, as torch: zeros like the parameter, a float32 step counter
      s["step"] = zeros({}, TensorOptions(kFloat32));
      s["exp_avg"] = zeros_like(p);
      s["exp_avg_sq"] = zeros_like(p);
      if (amsgrad) s["max_exp_avg_sq"] = zeros_like(p);
    }
    m.push_back(s["exp_avg"]);
    v.push_back(s["exp_avg_sq"]);
    vmax.push_back(amsgrad ? s["max_exp_avg_sq"] : Tensor());
    steps.push_back(s["step"]);
  }
  functional::adam(params, grads, m, v, vmax, steps,
                   {o["lr"], o["beta1"], o["beta2"], o["eps"], o["weight_decay"], amsgrad, o["maximize"] != 0,
                    o["decoupled_weight_decay"] != 0});
}

}  // namespace ember::optim

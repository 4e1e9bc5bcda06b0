// torch.optim for C++ users: param groups with per-group hyper-parameters, per-parameter state,
// zero_grad and step (the math is ember/optim/functional.h's fused steps).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/optim/functional.h"

namespace ember::optim {

// A group's hyper-parameters by torch's names ("lr", "momentum", "beta1" ...; flags as 0/1).
using Options = std::map<std::string, double>;

struct ParamGroup {
  std::vector<Tensor> params;
  Options options;  // missing keys take the optimizer's defaults
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  std::vector<ParamGroup>& param_groups() { return groups_; }
  const Options& defaults() const { return defaults_; }
  // Torch's checks: a non-empty group, no parameter in two groups, leaves only.
  void add_param_group(ParamGroup group);
  void zero_grad(bool set_to_none = true);
  // One step over every parameter that has a grad; with a closure, its loss (re-evaluated first).
  Tensor step(const std::function<Tensor()>& closure = {});
  // Per-parameter state ("exp_avg", "step", "momentum_buffer" ...), as torch's optimizer.state.
  std::map<std::string, Tensor>& state(const Tensor& param) { return state_[param.impl()]; }

 protected:
  Optimizer(std::vector<ParamGroup> groups, Options defaults);
  virtual void step_group(ParamGroup& group, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) = 0;

 private:
  std::vector<ParamGroup> groups_;
  Options defaults_;
  std::unordered_map<const void*, std::map<std::string, Tensor>> state_;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<ParamGroup> groups, const functional::SGDOptions& o = {});
  SGD(std::vector<Tensor> params, const functional::SGDOptions& o = {}) : SGD({{std::move(params), {}}}, o) {}

 protected:
  void step_group(ParamGroup& group, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) override;
};

// Adam; AdamW is Adam with decoupled weight decay (0.01 by default).
class Adam : public Optimizer {
 public:
  Adam(std::vector<ParamGroup> groups, const functional::AdamOptions& o = {});
  Adam(std::vector<Tensor> params, const functional::AdamOptions& o = {}) : Adam({{std::move(params), {}}}, o) {}

 protected:
  void step_group(ParamGroup& group, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) override;
};

inline functional::AdamOptions adamw_options(functional::AdamOptions o = {.weight_decay = 1e-2}) {
  o.decoupled_weight_decay = true;
  return o;
}
class AdamW : public Adam {
 public:
  AdamW(std::vector<Tensor> params, const functional::AdamOptions& o = adamw_options()) : Adam(std::move(params), adamw_options(o)) {}
};

}  // namespace ember::optim

#include "ember/optim/optimizer.h"

#include <unordered_set>

#include "../core/cuda_hooks.h"

#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/cuda_graph.h"
#include "ember/errors.h"

namespace ember::optim {

Dict::Dict(std::initializer_list<std::pair<std::string, Value>> items) {
  for (const auto& [k, v] : items) (*this)[k] = v;
}

Value* Dict::find(const std::string& key) {
  for (auto& [k, v] : items_)
    if (k == key) return &v;
  return nullptr;
}

const Value* Dict::find(const std::string& key) const { return const_cast<Dict*>(this)->find(key); }

const Value& Dict::at(const std::string& key) const {
  const Value* v = find(key);
  EMBER_CHECK(v, Error, "optimizer: no entry '", key, "'");
  return *v;
}

Value& Dict::operator[](const std::string& key) {
  if (Value* v = find(key)) return *v;
  return items_.emplace_back(key, Value()).second;
}

bool Dict::erase(const std::string& key) {
  return std::erase_if(items_, [&](const auto& kv) { return kv.first == key; }) != 0;
}

double Dict::number(const std::string& key) const {
  const Value& v = at(key);
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* i = std::get_if<int64_t>(&v)) return double(*i);
  if (auto* b = std::get_if<bool>(&v)) return *b;
  if (auto* t = std::get_if<Tensor>(&v); t && t->numel() == 1) return t->item<double>();
  throw TypeError(str("optimizer option '", key, "' must be a number"));
}

bool Dict::flag(const std::string& key) const {
  const Value* v = find(key);
  if (!v || std::holds_alternative<std::monostate>(*v)) return false;
  return number(key) != 0;
}

double Dict::element(const std::string& key, size_t i) const {
  auto* t = std::get_if<std::vector<double>>(&at(key));
  EMBER_CHECK(t && i < t->size(), TypeError, "optimizer option '", key, "' must be a tuple of at least ", i + 1,
              " floats");
  return (*t)[i];
}

std::vector<Tensor>& group_params(ParamGroup& group) {
  auto* p = std::get_if<std::vector<Tensor>>(group.find("params"));
  EMBER_CHECK(p, Error, "param group has no 'params' list");
  return *p;
}

Optimizer::Optimizer(Params params, Dict defaults) : defaults_(std::move(defaults)) {
  EMBER_CHECK(!params.groups.empty(), ValueError, "optimizer got an empty parameter list");
  for (ParamGroup& g : params.groups) add_param_group(std::move(g));
}

void Optimizer::add_param_group(ParamGroup group) {
  std::unordered_set<const void*> seen, taken;
  for (const auto& g : groups_)
    for (const Tensor& p : group_params(*g)) taken.insert(p.impl());
  for (const Tensor& p : group_params(group)) {
    EMBER_CHECK(p.defined(), TypeError, "optimizer can only optimize Tensors, but one of the params is None");
    EMBER_CHECK(p.is_leaf() || p.retains_grad(), ValueError, "can't optimize a non-leaf Tensor");
    seen.insert(p.impl());
  }
  for (const void* p : seen)
    EMBER_CHECK(!taken.count(p), ValueError, "some parameters appear in more than one parameter group");
  for (const auto& [k, v] : defaults_)
    if (!group.contains(k)) group[k] = v;
  // "params" last, as torch's groups after add_param_group
  Value params = std::move(group["params"]);
  group.erase("params");
  group["params"] = std::move(params);
  groups_.push_back(std::make_shared<ParamGroup>(std::move(group)));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (const auto& g : groups_)
    for (const Tensor& p : group_params(*g)) {
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        p.set_grad(Tensor());
      } else {
        if (grad.grad_fn()) grad.detach_();
        else grad.requires_grad_(false);
        grad.zero_();
      }
    }
}

Optimizer::Grads Optimizer::with_grads(ParamGroup& group) {
  Grads g;
  for (const Tensor& p : group_params(group))
    if (Tensor grad = p.grad(); grad.defined()) {
      bool sparse = grad.has_sparse_layout();
      (sparse ? g.sparse_params : g.params).push_back(p);
      (sparse ? g.sparse_grads : g.grads).push_back(grad);
    }
  return g;
}

Tensor Optimizer::evaluate(const std::function<Tensor()>& closure) {
  if (!closure) return Tensor();
  autograd::GradModeGuard enable(true);
  return closure();
}

Tensor Optimizer::step(const std::function<Tensor()>& closure) {
  Tensor loss = evaluate(closure);
  autograd::NoGradGuard no_grad;
  check_capture_health();
  for (const auto& g : groups_) {
    Grads gr = with_grads(*g);
    if (!gr.sparse_params.empty()) step_sparse(*g, gr.sparse_params, gr.sparse_grads);
    if (!gr.params.empty()) step_group(*g, gr.params, gr.grads);
  }
  count_step();
  return loss;
}

void Optimizer::check_capture_health() const {
  if (!defaults_.contains("capturable") || !loaded_cuda_hooks() || !cuda::is_available() ||
      !cuda::is_current_stream_capturing())
    return;
  for (const auto& g : groups_) {
    EMBER_CHECK(g->flag("capturable"), Error, "Attempting CUDA graph capture of step() for an instance of ", type_name(),
                " but param_groups' capturable is False.");
  }
}

void Optimizer::step_group(ParamGroup&, const std::vector<Tensor>&, const std::vector<Tensor>&) {
  throw NotImplementedError("Optimizer.step is not implemented: a subclass defines step()");
}

void Optimizer::step_sparse(ParamGroup&, const std::vector<Tensor>&, const std::vector<Tensor>&) {
  std::string name = type_name();
  if (name == "Adam" || name == "AdamW")  // torch's AdamW is an Adam: its message
    throw Error("Adam does not support sparse gradients, please consider SparseAdam instead");
  throw Error(name + " does not support sparse gradients");
}

std::shared_ptr<Dict> Optimizer::state_ptr(const Tensor& param) {
  auto [it, inserted] = state_.try_emplace(param.impl(), nullptr);
  if (inserted) {
    it->second = std::make_shared<Dict>();
    state_order_.push_back(param);
  }
  return it->second;
}

Dict& Optimizer::state(const Tensor& param) { return *state_ptr(param); }

StateDict Optimizer::state_dict() const {
  StateDict sd;
  std::unordered_map<const void*, int64_t> index;
  for (const auto& g : groups_) {
    Dict options;
    std::vector<int64_t> ids;
    for (const auto& [k, v] : *g)
      if (k != "params") options[k] = v;
    for (const Tensor& p : group_params(*g)) ids.push_back(index.try_emplace(p.impl(), int64_t(index.size())).first->second);
    sd.param_groups.emplace_back(std::move(options), std::move(ids));
  }
  for (const Tensor& p : state_order_)
    if (auto it = index.find(p.impl()); it != index.end()) sd.state.emplace_back(it->second, *state_.at(p.impl()));
  return sd;
}

void Optimizer::load_state_dict(const StateDict& sd) {
  EMBER_CHECK(sd.param_groups.size() == groups_.size(), ValueError,
              "loaded state dict has a different number of parameter groups");
  std::unordered_map<int64_t, Tensor> by_id;
  std::unordered_set<int64_t> capturable;  // parameters of groups loaded with capturable=True
  for (size_t i = 0; i < groups_.size(); ++i) {
    const std::vector<Tensor>& params = group_params(*groups_[i]);
    const std::vector<int64_t>& ids = sd.param_groups[i].second;
    EMBER_CHECK(ids.size() == params.size(), ValueError,
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
    for (size_t j = 0; j < ids.size(); ++j) by_id[ids[j]] = params[j];
    if (const Dict& o = sd.param_groups[i].first; o.contains("capturable") && o.flag("capturable"))
      capturable.insert(ids.begin(), ids.end());
  }
  // The param's dtype for floating state (a tensor of another dtype or device is converted).
  auto cast = [](const Tensor& p, const std::string& key, const Tensor& t, bool capturable) {
    if (key == "step") return capturable ? t.to(p.device()).to(kFloat32) : t;  // torch: on the device when capturable
    Tensor on = t.to(p.device());
    return p.is_floating_point() ? on.to(p.dtype()) : on;
  };
  state_.clear();
  state_order_.clear();
  for (const auto& [id, saved] : sd.state) {
    auto it = by_id.find(id);
    if (it == by_id.end()) continue;
    Dict& s = state(it->second);
    const bool on_device = capturable.count(id) != 0;
    for (const auto& [k, v] : saved) {
      if (const Tensor* t = std::get_if<Tensor>(&v)) s[k] = cast(it->second, k, *t, on_device);
      else if (const auto* ts = std::get_if<std::vector<Tensor>>(&v)) {
        std::vector<Tensor> out;
        for (const Tensor& t : *ts) out.push_back(cast(it->second, k, t, on_device));
        s[k] = std::move(out);
      } else s[k] = v;
    }
  }
  for (size_t i = 0; i < groups_.size(); ++i) {
    ParamGroup g = sd.param_groups[i].first;
    g["params"] = group_params(*groups_[i]);
    *groups_[i] = std::move(g);
  }
}

}  // namespace ember::optim

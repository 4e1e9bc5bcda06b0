// ember::nn::Module: the registries, traversal, state_dict and hooks (torch/nn/modules/module.py's rules).
#include "ember/nn/module.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "ember/autograd.h"
#include "ember/nn/repr.h"

namespace ember::nn {

namespace {

Module::CallOverride g_call_override = nullptr;

// torch.Size([2, 3]), as torch's messages print shapes.
std::string size_string(IntArrayRef sizes) {
  std::string s = "torch.Size([";
  for (size_t i = 0; i < sizes.size(); ++i) s.append(i ? ", " : "").append(std::to_string(sizes[i]));
  return s + "])";
}

template <typename Entry>
void erase_hook(std::vector<std::pair<uint64_t, Entry>>& v, uint64_t id) {
  std::erase_if(v, [id](const auto& e) { return e.first == id; });
}

}  // namespace

void set_data(const Tensor& dst, const Tensor& src) {
  TensorImpl& d = *dst.impl();
  d.storage = src.storage();
  d.sizes = DimVector(src.sizes());
  d.strides = DimVector(src.strides());
  d.storage_offset = src.storage_offset();
  d.dtype = src.dtype();
  d.refresh_metadata();
}

void Module::set_call_override(CallOverride fn) { g_call_override = fn; }

void RemovableHandle::remove() {
  if (auto table = table_.lock()) erase_(table.get(), id_);
}

Module::Module(std::string name) : name_(std::move(name)) {}

Tensor Module::forward(const Tensor&) {
  throw NotImplementedError(str("Module [", name(), "] is missing the required \"forward\" function"));
}

Tensor Module::operator()(const Tensor& input) {
  if (uses_call_override_ && g_call_override) return g_call_override(*this, input);
  if (!has_forward_hooks()) return forward(input);
  Tensor x = input;
  for (auto& [id, hook] : std::vector(hooks_->pre))
    if (auto r = hook(*this, x)) x = *r;
  Tensor y = forward(x);
  for (auto& [id, hook] : std::vector(hooks_->post))
    if (auto r = hook(*this, x, y)) y = *r;
  return y;
}

std::string Module::repr() const {
  std::vector<std::string> lines;
  std::string extra = extra_repr();
  if (!extra.empty()) {
    std::istringstream is(extra);
    for (std::string line; std::getline(is, line);) lines.push_back(line);
  }
  for (auto& item : modules_.items()) {
    std::string child = item->value ? item->value->repr() : "None";
    lines.push_back("(" + item->name + "): " + add_indent(child, 2));
  }
  std::string s = name() + "(";
  if (!lines.empty()) {
    if (lines.size() == 1 && modules_.size() == 0) {
      s += lines[0];
    } else {
      for (auto& l : lines) s += "\n  " + l;
      s += "\n";
    }
  }
  return s + ")";
}

void Module::check_new_name(const std::string& name, const char* what) const {
  EMBER_CHECK(name.find('.') == std::string::npos, KeyError, what, " name can't contain \".\"");
  EMBER_CHECK(!name.empty(), KeyError, what, " name can't be empty string \"\"");
}

Tensor& Module::register_parameter(const std::string& name, Tensor param, bool requires_grad) {
  check_new_name(name, "parameter");
  EMBER_CHECK(!buffers_.find(name) && !modules_.find(name), KeyError, "attribute '", name, "' already exists");
  if (param.defined()) {
    EMBER_CHECK(!param.grad_fn(), ValueError, "Cannot assign non-leaf Tensor to parameter '", name,
                "'. Model parameters must be created explicitly. To express '", name,
                "' as a function of another Tensor, compute the value in the forward() method.");
    if (param.requires_grad() != requires_grad) param.requires_grad_(requires_grad);
    param.impl()->is_parameter = true;
  }
  return parameters_.set(name, std::move(param));
}

Tensor& Module::register_buffer(const std::string& name, Tensor buffer, bool persistent) {
  check_new_name(name, "buffer");
  EMBER_CHECK(!parameters_.find(name) && !modules_.find(name), KeyError, "attribute '", name, "' already exists");
  std::erase(non_persistent_, name);
  if (!persistent) non_persistent_.push_back(name);
  return buffers_.set(name, std::move(buffer));
}

ModulePtr& Module::add_module(const std::string& name, ModulePtr module) {
  EMBER_CHECK(!parameters_.find(name) && !buffers_.find(name), KeyError, "attribute '", name, "' already exists");
  EMBER_CHECK(name.find('.') == std::string::npos, KeyError, "module name can't contain \".\", got: ", name);
  EMBER_CHECK(!name.empty(), KeyError, "module name can't be empty string \"\"");
  return modules_.set(name, std::move(module));
}

bool Module::unregister(std::string_view name) {
  if (buffers_.erase(name)) {
    std::erase(non_persistent_, name);
    return true;
  }
  return parameters_.erase(name) || modules_.erase(name);
}

bool Module::is_persistent(std::string_view buffer) const {
  return std::find(non_persistent_.begin(), non_persistent_.end(), buffer) == non_persistent_.end();
}

// ---- traversal

void Module::collect_named(StateDict& out, const std::string& prefix, bool recurse, bool remove_duplicate,
                           bool buffers) const {
  std::set<const TensorImpl*> seen;
  std::set<const Module*> seen_modules;
  std::function<void(const Module&, const std::string&)> visit = [&](const Module& m, const std::string& p) {
    if (remove_duplicate && !seen_modules.insert(&m).second) return;
    for (auto& item : (buffers ? m.buffers_ : m.parameters_).items()) {
      if (!item->value.defined()) continue;
      if (remove_duplicate && !seen.insert(item->value.impl()).second) continue;
      out.emplace_back(p + (p.empty() ? "" : ".") + item->name, item->value);
    }
    if (!recurse) return;
    for (auto& item : m.modules_.items())
      if (item->value) visit(*item->value, p + (p.empty() ? "" : ".") + item->name);
  };
  visit(*this, prefix);
}

StateDict Module::named_parameters(const std::string& prefix, bool recurse, bool remove_duplicate) const {
  StateDict out;
  collect_named(out, prefix, recurse, remove_duplicate, false);
  return out;
}

StateDict Module::named_buffers(const std::string& prefix, bool recurse, bool remove_duplicate) const {
  StateDict out;
  collect_named(out, prefix, recurse, remove_duplicate, true);
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_parameters("", recurse)) out.push_back(t);
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_buffers("", recurse)) out.push_back(t);
  return out;
}

std::vector<std::pair<std::string, ModulePtr>> Module::named_children() const {
  std::vector<std::pair<std::string, ModulePtr>> out;
  std::set<const Module*> seen;
  for (auto& item : modules_.items())
    if (item->value && seen.insert(item->value.get()).second) out.emplace_back(item->name, item->value);
  return out;
}

std::vector<ModulePtr> Module::children() const {
  std::vector<ModulePtr> out;
  for (auto& [name, m] : named_children()) out.push_back(m);
  return out;
}

std::vector<std::pair<std::string, ModulePtr>> Module::named_modules(const std::string& prefix,
                                                                     bool remove_duplicate) {
  std::vector<std::pair<std::string, ModulePtr>> out;
  std::set<const Module*> seen;
  std::function<void(const ModulePtr&, const std::string&)> visit = [&](const ModulePtr& m, const std::string& p) {
    if (remove_duplicate && !seen.insert(m.get()).second) return;
    out.emplace_back(p, m);
    for (auto& item : m->modules_.items())
      if (item->value) visit(item->value, p + (p.empty() ? "" : ".") + item->name);
  };
  visit(shared_from_this(), prefix);
  return out;
}

std::vector<ModulePtr> Module::modules() {
  std::vector<ModulePtr> out;
  for (auto& [name, m] : named_modules()) out.push_back(m);
  return out;
}

// ---- state

StateDict Module::state_dict(const std::string& prefix, bool keep_vars) const {
  StateDict out;
  std::function<void(const Module&, const std::string&)> visit = [&](const Module& m, const std::string& p) {
    for (auto& item : m.parameters_.items())
      if (item->value.defined()) out.emplace_back(p + item->name, keep_vars ? item->value : item->value.detach());
    for (auto& item : m.buffers_.items())
      if (item->value.defined() && m.is_persistent(item->name))
        out.emplace_back(p + item->name, keep_vars ? item->value : item->value.detach());
    for (auto& item : m.modules_.items())
      if (item->value) visit(*item->value, p + item->name + ".");
  };
  visit(*this, prefix);
  return out;
}

// torch's Module._load_from_state_dict for this module's own tensors, then its children (torch's `load`).
void Module::load_into(const StateDict& state, const std::string& prefix, IncompatibleKeys& keys,
                       std::vector<std::string>& errors) {
  auto lookup = [&](const std::string& key) -> const Tensor* {
    for (auto& [k, v] : state)
      if (k == key) return &v;
    return nullptr;
  };
  auto load = [&](const std::string& name, const Tensor& param) {
    std::string key = prefix + name;
    const Tensor* found = lookup(key);
    if (!found) {
      keys.missing_keys.push_back(key);
      return;
    }
    Tensor input = *found;
    if (param.dim() == 0 && input.dim() == 1) input = input[0];  // torch's backward compatibility for 0-dim params
    if (!(DimVector(input.sizes()) == DimVector(param.sizes()))) {
      errors.push_back(str("size mismatch for ", key, ": copying a param with shape ", size_string(input.sizes()),
                           " from checkpoint, the shape in current model is ", size_string(param.sizes()), "."));
      return;
    }
    try {
      autograd::NoGradGuard no_grad;
      Tensor(param).copy_(input);
    } catch (const std::exception& e) {
      errors.push_back(str("While copying the parameter named \"", key, "\", whose dimensions in the model are ",
                           size_string(param.sizes()), " and whose dimensions in the checkpoint are ",
                           size_string(input.sizes()), ", an exception occurred : ", e.what(), "."));
    }
  };
  for (auto& item : parameters_.items())
    if (item->value.defined()) load(item->name, item->value);
  for (auto& item : buffers_.items())
    if (item->value.defined() && is_persistent(item->name)) load(item->name, item->value);
  for (auto& [key, value] : state) {
    if (key.compare(0, prefix.size(), prefix) != 0) continue;
    std::string rest = key.substr(prefix.size());
    std::string head = rest.substr(0, rest.find('.'));
    bool local = (parameters_.find(rest) && parameters_.find(rest)->defined()) ||
                 (buffers_.find(rest) && buffers_.find(rest)->defined() && is_persistent(rest));
    if (!modules_.find(head) && !local) keys.unexpected_keys.push_back(key);
  }
  for (auto& item : modules_.items()) {
    if (!item->value) continue;
    std::string child_prefix = prefix + item->name + ".";
    StateDict child_state;
    for (auto& kv : state)
      if (kv.first.compare(0, child_prefix.size(), child_prefix) == 0) child_state.push_back(kv);
    item->value->load_into(child_state, child_prefix, keys, errors);
  }
}

IncompatibleKeys Module::load_state_dict(const StateDict& state, bool strict) {
  IncompatibleKeys keys;
  std::vector<std::string> errors;
  load_into(state, "", keys, errors);
  auto quoted = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
    return s;
  };
  if (strict && !keys.unexpected_keys.empty())
    errors.insert(errors.begin(), "Unexpected key(s) in state_dict: " + quoted(keys.unexpected_keys) + ". ");
  if (strict && !keys.missing_keys.empty())
    errors.insert(errors.begin(), "Missing key(s) in state_dict: " + quoted(keys.missing_keys) + ". ");
  if (!errors.empty()) {
    std::string msg = "Error(s) in loading state_dict for " + name() + ":";
    for (auto& e : errors) msg += "\n\t" + e;
    throw Error(msg);
  }
  return keys;
}

Module& Module::train(bool mode) {
  training_ = mode;
  for (auto& m : children()) m->train(mode);
  return *this;
}

Module& Module::apply_to_tensors(const std::function<Tensor(const Tensor&)>& fn) {
  for (auto& m : children()) m->apply_to_tensors(fn);
  autograd::NoGradGuard no_grad;
  for (auto& item : parameters_.items()) {
    const Tensor& p = item->value;
    if (!p.defined()) continue;
    set_data(p, fn(p));
    if (Tensor g = p.grad(); g.defined()) set_data(g, fn(g));
  }
  for (auto& item : buffers_.items())
    if (item->value.defined()) item->value = fn(item->value);
  return *this;
}

Module& Module::to(ScalarType dtype) {
  EMBER_CHECK(is_floating_point(dtype), TypeError,
              "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.", dtype_name(dtype));
  return apply_to_tensors([dtype](const Tensor& t) { return t.is_floating_point() ? t.to(dtype) : t; });
}

Module& Module::to(Device device) {
  return apply_to_tensors([device](const Tensor& t) { return t.to(device); });
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      p.set_grad(Tensor());
    } else {
      if (g.grad_fn()) g.detach_();
      else g.requires_grad_(false);
      g.zero_();
    }
  }
}

Module& Module::requires_grad_(bool requires_grad) {
  for (Tensor& p : parameters()) p.requires_grad_(requires_grad);
  return *this;
}

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (auto& m : children()) m->apply(fn);
  fn(*this);
  return *this;
}

// ---- hooks

RemovableHandle Module::register_forward_pre_hook(ForwardPreHook hook, bool prepend) {
  uint64_t id = hooks_->next_id++;
  auto& v = hooks_->pre;
  v.insert(prepend ? v.begin() : v.end(), {id, std::move(hook)});
  return RemovableHandle(hooks_, id, [](void* t, uint64_t i) { erase_hook(static_cast<Hooks*>(t)->pre, i); });
}

RemovableHandle Module::register_forward_hook(ForwardHook hook, bool prepend) {
  uint64_t id = hooks_->next_id++;
  auto& v = hooks_->post;
  v.insert(prepend ? v.begin() : v.end(), {id, std::move(hook)});
  return RemovableHandle(hooks_, id, [](void* t, uint64_t i) { erase_hook(static_cast<Hooks*>(t)->post, i); });
}

}  // namespace ember::nn

// ember::nn::Module (torch.nn.Module): parameters, buffers and submodules registered by name in definition
// order, state_dict, train/eval, dtype/device moves, hooks and torch's repr. Python's ember.nn.Module is this
// class (python/src/nn_module.cpp), so a Python subclass and a C++ layer share one set of registries.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/errors.h"
#include "ember/tensor.h"

namespace ember::nn {

struct KeyError : Error { using Error::Error; };        // Python's KeyError
struct AttributeError : Error { using Error::Error; };  // Python's AttributeError

// An ordered name -> value map whose values never move: a layer keeps a reference to its slot (Linear's
// `weight`) and so reads whatever was assigned or loaded last. A removed name keeps its slot for a later
// registration (which puts it last, as a dict would).
template <typename V>
class NamedSlots {
 public:
  struct Item {
    std::string name;
    V value;
  };
  V* find(std::string_view name) const {
    for (auto& item : items_)
      if (item->name == name) return &item->value;
    return nullptr;
  }
  V& set(const std::string& name, V value) {
    if (V* v = find(name)) return *v = std::move(value);
    auto it = removed_.begin();
    while (it != removed_.end() && (*it)->name != name) ++it;
    if (it != removed_.end()) {
      items_.push_back(std::move(*it));
      removed_.erase(it);
    } else {
      items_.push_back(std::make_unique<Item>(Item{name, V()}));
    }
    return items_.back()->value = std::move(value);
  }
  bool erase(std::string_view name) {
    for (auto it = items_.begin(); it != items_.end(); ++it) {
      if ((*it)->name != name) continue;
      (*it)->value = V();
      removed_.push_back(std::move(*it));
      items_.erase(it);
      return true;
    }
    return false;
  }
  void clear() {
    while (!items_.empty()) erase(std::string(items_.front()->name));
  }
  size_t size() const { return items_.size(); }
  const std::vector<std::unique_ptr<Item>>& items() const { return items_; }

 private:
  std::vector<std::unique_ptr<Item>> items_, removed_;
};

// t as an optional argument of a functional op: nullopt where t is undefined (a module's absent weight or bias).
inline std::optional<Tensor> optional_tensor(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

class Module;
using ModulePtr = std::shared_ptr<Module>;
using StateDict = std::vector<std::pair<std::string, Tensor>>;

// load_state_dict's result (torch's _IncompatibleKeys).
struct IncompatibleKeys {
  std::vector<std::string> missing_keys, unexpected_keys;
};

// A forward pre-hook may return a replacement input, a forward hook a replacement output (torch's rules for
// the one-tensor call of C++ containers).
using ForwardPreHook = std::function<std::optional<Tensor>(Module&, const Tensor& input)>;
using ForwardHook = std::function<std::optional<Tensor>(Module&, const Tensor& input, const Tensor& output)>;

// What register_*_hook returns: remove() unregisters the hook (a no-op once it or its module is gone).
class RemovableHandle {
 public:
  RemovableHandle(std::weak_ptr<void> table, uint64_t id, void (*erase)(void*, uint64_t))
      : table_(std::move(table)), id_(id), erase_(erase) {}
  void remove();
  uint64_t id() const { return id_; }

 private:
  std::weak_ptr<void> table_;
  uint64_t id_;
  void (*erase_)(void*, uint64_t);
};

class Module : public std::enable_shared_from_this<Module> {
 public:
  // `name` is the class name repr shows ("Linear"); Python subclasses report their own.
  explicit Module(std::string name = "Module");
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // ---- calling: operator() runs the pre-hooks, forward and the forward hooks
  virtual Tensor forward(const Tensor& input);
  Tensor operator()(const Tensor& input);
  virtual std::string name() const { return name_; }
  virtual std::string extra_repr() const { return {}; }
  virtual std::string repr() const;  // torch's: name(extra_repr) or name(\n  (child): ...\n)

  // ---- registration: each returns its slot (a layer keeps the reference); a registered parameter is marked
  // is_parameter (Python shows it as an nn.Parameter)
  Tensor& register_parameter(const std::string& name, Tensor param, bool requires_grad = true);
  Tensor& register_buffer(const std::string& name, Tensor buffer, bool persistent = true);
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    add_module(name, module);
    return module;
  }
  ModulePtr& add_module(const std::string& name, ModulePtr module);
  // Removes `name` from whichever registry holds it; false if none does.
  bool unregister(std::string_view name);

  // The registries (a slot may hold an undefined tensor or null module: torch's None).
  const NamedSlots<Tensor>& parameter_slots() const { return parameters_; }
  const NamedSlots<Tensor>& buffer_slots() const { return buffers_; }
  const NamedSlots<ModulePtr>& module_slots() const { return modules_; }
  bool is_persistent(std::string_view buffer) const;

  // ---- traversal (torch's names and arguments; shared tensors and modules listed once)
  std::vector<Tensor> parameters(bool recurse = true) const;
  StateDict named_parameters(const std::string& prefix = "", bool recurse = true, bool remove_duplicate = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  StateDict named_buffers(const std::string& prefix = "", bool recurse = true, bool remove_duplicate = true) const;
  std::vector<ModulePtr> children() const;
  std::vector<std::pair<std::string, ModulePtr>> named_children() const;
  std::vector<ModulePtr> modules();
  std::vector<std::pair<std::string, ModulePtr>> named_modules(const std::string& prefix = "",
                                                               bool remove_duplicate = true);

  // ---- state
  // Parameters then persistent buffers of each module, children after; keep_vars=false detaches.
  StateDict state_dict(const std::string& prefix = "", bool keep_vars = false) const;
  // Copies matching entries in place; raises torch's RuntimeError for shape mismatches and, when strict,
  // missing or unexpected keys.
  IncompatibleKeys load_state_dict(const StateDict& state, bool strict = true);

  bool is_training() const { return training_; }
  Module& train(bool mode = true);  // this module and its descendants
  void set_training(bool mode) { training_ = mode; }  // this module only
  Module& eval() { return train(false); }
  // Floating-point parameters (their data replaced in place, so identities hold) and buffers (replaced).
  Module& to(ScalarType dtype);
  Module& to(Device device);
  Module& to_float() { return to(kFloat32); }
  Module& to_double() { return to(kFloat64); }
  Module& to_half() { return to(kFloat16); }
  Module& to_bfloat16() { return to(kBFloat16); }
  // Applies fn to every parameter (data in place), its grad, and every buffer (replaced).
  Module& apply_to_tensors(const std::function<Tensor(const Tensor&)>& fn);
  void zero_grad(bool set_to_none = true);
  Module& requires_grad_(bool requires_grad = true);
  Module& apply(const std::function<void(Module&)>& fn);  // children first, then this module

  // ---- hooks on operator()
  RemovableHandle register_forward_pre_hook(ForwardPreHook hook, bool prepend = false);
  RemovableHandle register_forward_hook(ForwardHook hook, bool prepend = false);
  bool has_forward_hooks() const { return !hooks_->pre.empty() || !hooks_->post.empty(); }

  // How a call from C++ reaches a module that has hooks of another kind (Python's): the Python layer sets
  // this and marks such modules; others run the C++ path.
  using CallOverride = Tensor (*)(Module&, const Tensor&);
  static void set_call_override(CallOverride fn);
  void set_uses_call_override(bool on) { uses_call_override_ = on; }
  bool uses_call_override() const { return uses_call_override_; }

 protected:
  std::string name_;

 private:
  struct Hooks {
    uint64_t next_id = 0;
    std::vector<std::pair<uint64_t, ForwardPreHook>> pre;
    std::vector<std::pair<uint64_t, ForwardHook>> post;
  };
  NamedSlots<Tensor> parameters_, buffers_;
  NamedSlots<ModulePtr> modules_;
  std::vector<std::string> non_persistent_;
  std::shared_ptr<Hooks> hooks_ = std::make_shared<Hooks>();
  bool training_ = true;
  bool uses_call_override_ = false;

  void check_new_name(const std::string& name, const char* what) const;
  void collect_named(StateDict& out, const std::string& prefix, bool recurse, bool remove_duplicate,
                     bool buffers) const;
  void load_into(const StateDict& state, const std::string& prefix, IncompatibleKeys& keys,
                 std::vector<std::string>& errors);
};

// Replaces the data of `dst` with `src`'s (storage, geometry, dtype) keeping dst's identity: torch's `p.data = t`.
void set_data(const Tensor& dst, const Tensor& src);

}  // namespace ember::nn

// torch.optim in C++, the one implementation Python binds (ember.optim's classes are these classes):
// param groups and per-parameter state are string-keyed dicts of Values, as torch's dicts; every
// built-in step is one fused multi-tensor pass in C++.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "ember/tensor.h"

namespace ember::optim {

// A value some host language owns (a Python object in a dict); C++ only keeps it alive.
struct Opaque {
  virtual ~Opaque() = default;
};

// What a group option or a state entry holds: None, bool, int, float, str, a tuple of floats
// (betas), a tensor, a list of tensors ("params", LBFGS's history), or an opaque host value.
using Value = std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<double>, Tensor,
                           std::vector<Tensor>, std::shared_ptr<Opaque>>;

// A dict with string keys in insertion order (a param group, one parameter's state).
class Dict {
 public:
  Dict() = default;
  Dict(std::initializer_list<std::pair<std::string, Value>> items);
  Value* find(const std::string& key);
  const Value* find(const std::string& key) const;
  const Value& at(const std::string& key) const;  // KeyError when missing
  Value& operator[](const std::string& key);      // inserts None when missing
  bool contains(const std::string& key) const { return find(key) != nullptr; }
  bool erase(const std::string& key);
  size_t size() const { return items_.size(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

  // Typed reads: a number (bool, int, float or a one-element tensor), a flag, a tuple's element.
  double number(const std::string& key) const;
  bool flag(const std::string& key) const;
  double element(const std::string& key, size_t i) const;

 private:
  std::vector<std::pair<std::string, Value>> items_;
};

// A param group: "params" (a list of tensors) and the group's hyper-parameters.
using ParamGroup = Dict;
std::vector<Tensor>& group_params(ParamGroup& group);

// What an optimizer is given: one list of parameters, or groups.
struct Params {
  std::vector<ParamGroup> groups;
  Params(std::vector<Tensor> params) {  // none: no group (the optimizer's "empty parameter list")
    if (!params.empty()) groups.push_back(ParamGroup{{"params", std::move(params)}});
  }
  Params(std::vector<ParamGroup> g) : groups(std::move(g)) {}
};

// torch's state_dict layout: state by parameter index, groups with "params" as index lists.
struct StateDict {
  std::vector<std::pair<int64_t, Dict>> state;
  std::vector<std::pair<Dict, std::vector<int64_t>>> param_groups;  // options, parameter indices
};

class Optimizer {
 public:
  // `defaults` fill every group's missing options.
  Optimizer(Params params, Dict defaults);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  const std::vector<std::shared_ptr<ParamGroup>>& param_groups() const { return groups_; }
  Dict& defaults() { return defaults_; }
  // torch's checks: tensors only, leaves, no parameter in two groups, required options given.
  void add_param_group(ParamGroup group);
  void zero_grad(bool set_to_none = true);
  // One step over every parameter that has a grad; with a closure, its loss (evaluated first, with grad).
  virtual Tensor step(const std::function<Tensor()>& closure = {});
  // How many steps were taken (a scheduler warns when it steps before the optimizer did).
  int64_t step_count() const { return step_count_; }
  void count_step() { ++step_count_; }

  // Per-parameter state, as torch's optimizer.state (made empty on first access).
  Dict& state(const Tensor& param);
  std::shared_ptr<Dict> state_ptr(const Tensor& param);
  bool has_state(const Tensor& param) const { return state_.count(param.impl()) != 0; }
  // Parameters with state, in the order their state was made.
  const std::vector<Tensor>& state_params() const { return state_order_; }

  StateDict state_dict() const;
  // Groups take the saved options (keeping their parameters); state tensors take each parameter's
  // dtype (floating state, except "step") and device ("step" only in a capturable group, as float32).
  void load_state_dict(const StateDict& sd);

 protected:
  // The class's name, for messages ("Adam").
  virtual const char* type_name() const { return "Optimizer"; }
  // The closure's loss, evaluated with grad enabled (undefined without a closure).
  static Tensor evaluate(const std::function<Tensor()>& closure);
  // torch's check before a step: capturing a step on a CUDA stream needs every group capturable (where the
  // optimizer has the option).
  void check_capture_health() const;
  // Steps one group: `params` are the group's parameters that have a dense grad, `grads` their grads.
  virtual void step_group(ParamGroup& group, const std::vector<Tensor>& params, const std::vector<Tensor>& grads);
  // Steps the group's parameters whose grads are sparse (called first); by default torch's refusal
  // ("RMSprop does not support sparse gradients"), raised before any parameter changes.
  virtual void step_sparse(ParamGroup& group, const std::vector<Tensor>& params, const std::vector<Tensor>& grads);
  // The group's parameters that have a grad, and their grads, dense and sparse apart.
  struct Grads {
    std::vector<Tensor> params, grads, sparse_params, sparse_grads;
  };
  static Grads with_grads(ParamGroup& group);

 private:
  std::vector<std::shared_ptr<ParamGroup>> groups_;
  Dict defaults_;
  std::unordered_map<const void*, std::shared_ptr<Dict>> state_;
  std::vector<Tensor> state_order_;
  int64_t step_count_ = 0;
};

// Each optimizer takes torch's options by torch's names (missing ones take torch's defaults), e.g.
// Adam(params, {{"lr", 1e-2}, {"betas", std::vector<double>{0.9, 0.99}}}). positional() lists the
// options torch takes positionally after params, in order (the Python binding's signature).
// `...`: further protected members (the step_sparse override of an optimizer with a sparse path).
#define EMBER_OPTIMIZER(Name, ...)                                      \
  class Name : public Optimizer {                                       \
   public:                                                              \
    Name(Params params, const Dict& options = {});                      \
    static const Dict& default_options();                               \
    static const std::vector<std::string>& positional();                \
    static void validate(const Dict& options); /* torch's checks */     \
                                                                        \
   protected:                                                           \
    const char* type_name() const override { return #Name; }            \
    void step_group(ParamGroup& group, const std::vector<Tensor>& params, \
                    const std::vector<Tensor>& grads) override;         \
    __VA_ARGS__                                                         \
  };
#define EMBER_SPARSE_STEP \
  void step_sparse(ParamGroup& group, const std::vector<Tensor>& params, const std::vector<Tensor>& grads) override;

// SGD and Adagrad also step sparse gradients (torch's math op by op); SparseAdam steps only sparse ones, updating the
// moments at the gradient's entries alone (lazy Adam).
EMBER_OPTIMIZER(SGD, EMBER_SPARSE_STEP)
EMBER_OPTIMIZER(Adam)
EMBER_OPTIMIZER(AdamW)
EMBER_OPTIMIZER(Adagrad, EMBER_SPARSE_STEP)
EMBER_OPTIMIZER(SparseAdam, EMBER_SPARSE_STEP public:  // checks every grad is sparse first
                Tensor step(const std::function<Tensor()>& closure = {}) override;)
EMBER_OPTIMIZER(RMSprop)
EMBER_OPTIMIZER(Adamax)
EMBER_OPTIMIZER(NAdam)
EMBER_OPTIMIZER(RAdam)
EMBER_OPTIMIZER(Adadelta)
EMBER_OPTIMIZER(ASGD)
EMBER_OPTIMIZER(Rprop)
EMBER_OPTIMIZER(Adafactor)  // eps's first element NaN: None, the parameter dtype's machine epsilon
EMBER_OPTIMIZER(Muon)       // 2-D parameters; the update orthogonalised in bfloat16
#undef EMBER_OPTIMIZER
#undef EMBER_SPARSE_STEP

// L-BFGS over all parameters as one flat vector (one group): up to max_iter iterations of the two-loop
// recursion per step, each re-evaluating the closure. line_search_fn "strong_wolfe" is not in yet.
class LBFGS : public Optimizer {
 public:
  LBFGS(Params params, const Dict& options = {});
  static const Dict& default_options();
  static const std::vector<std::string>& positional();
  static void validate(const Dict& options);
  // The closure is required; returns its first loss.
  Tensor step(const std::function<Tensor()>& closure) override;
};

}  // namespace ember::optim

// Reverse-mode automatic differentiation on a dynamic graph (torch.autograd).
// Every differentiable op that runs with grad mode on and an input requiring grad gives its result
// a grad_fn: a Node whose next_edges lead to the nodes of its inputs (AccumulateGrad for leaves).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember::autograd {

struct Node;
using TensorList = std::vector<Tensor>;

// Where a gradient flows: input `input_nr` of node `fn` (null fn: nowhere).
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

// Shape and dtype of one of a node's inputs (a forward output), so the engine can check, reduce
// (broadcast) and cast the gradients that arrive, and make zeros for ones that never do.
struct InputMeta {
  DimVector sizes;
  ScalarType dtype;
  Device device = kCPU;
};

using TensorHook = std::function<Tensor(const Tensor& grad)>;  // returns a replacement or an undefined tensor

struct Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node();  // frees the graph behind it iteratively (a long chain would overflow the stack)
  // Gradients w.r.t. this node's inputs (the forward op's outputs) -> gradients w.r.t. next_edges.
  virtual TensorList apply(TensorList&& grads) = 0;
  virtual std::string name() const = 0;
  // The name reprs show: name() without torch's "torch::autograd::" namespace.
  std::string short_name() const;
  // Frees saved tensors after a backward pass that does not retain the graph.
  virtual void release_variables() {}

  std::vector<Edge> next_edges;
  std::vector<InputMeta> input_meta;
  struct Hook {
    uint32_t input_nr;
    TensorHook fn;
    uint64_t id;
  };
  std::vector<Hook> pre_hooks;          // tensor.register_hook, in order
  std::vector<Hook> retain_grad_hooks;  // run after pre_hooks
  bool materialize_grads = true;        // gradients that never arrive are passed as zeros (else undefined)
  uint64_t sequence_nr;  // creation order: the engine runs later nodes first
};

// Holds the `.grad` of a leaf: adds each incoming gradient to it.
struct AccumulateGrad : Node {
  explicit AccumulateGrad(std::weak_ptr<TensorImpl> leaf) : leaf(std::move(leaf)) {}
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }  // torch's name()
  std::weak_ptr<TensorImpl> leaf;
};

// Per-tensor autograd state (TensorImpl::autograd); absent on plain tensors.
struct AutogradMeta {
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  std::shared_ptr<Node> grad_accumulator;  // a leaf's AccumulateGrad (holds the leaf weakly: no cycle)
  uint32_t output_nr = 0;
  uint32_t attr_version = 0;  // the storage's version when grad_fn was set (see refresh_view_history)
  bool retains_grad = false;
  // An output of a function returning several views (unbind, split): the version it was made at. Once the
  // storage is written (through the base or another view), its history is gone: torch raises on access.
  std::optional<uint32_t> multi_view_version;
};

// ---- grad mode (thread-local)
bool is_grad_enabled();
void set_grad_enabled(bool enabled);
bool is_inference_mode_enabled();
void set_inference_mode_enabled(bool enabled);

// RAII guards: torch.no_grad / torch.enable_grad / torch.inference_mode in C++.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : previous_(is_grad_enabled()) { set_grad_enabled(enabled); }
  ~GradModeGuard() { set_grad_enabled(previous_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool previous_;
};
struct NoGradGuard : GradModeGuard {
  NoGradGuard() : GradModeGuard(false) {}
};

// The edge a gradient for `t` flows into: its grad_fn, or its leaf accumulator.
Edge gradient_edge(const Tensor& t);

// Removes a hook registered by register_hook (no-op once its graph is gone).
class HookHandle {
 public:
  HookHandle(std::weak_ptr<Node> node, uint64_t id) : node_(std::move(node)), id_(id) {}
  void remove();

 private:
  std::weak_ptr<Node> node_;
  uint64_t id_;
};

// Calls `hook` with the gradient of `t` each time one is computed (tensor.register_hook).
HookHandle register_hook(const Tensor& t, TensorHook hook);

// Runs backward from `roots` (seeded with `grad_roots`, ones for scalars where undefined), adding
// into leaves' .grad; with `inputs`, into those tensors' .grad only (leaves or not).
void backward(const TensorList& roots, const TensorList& grad_roots = {}, std::optional<bool> retain_graph = {},
              bool create_graph = false, const TensorList& inputs = {});
// Gradients of `outputs` w.r.t. `inputs`, returned instead of accumulated (torch.autograd.grad).
// An input the outputs do not depend on raises unless allow_unused (then its gradient is undefined).
TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs = {},
                std::optional<bool> retain_graph = {}, bool create_graph = false, bool allow_unused = false);

// ---- custom differentiable functions (torch.autograd.Function)
// A tensor saved for backward. Unpacking checks that no in-place op has changed it since (its
// version), and fails once the graph was freed. A saved output is held without its history
// (no reference cycle through its own grad_fn) and gets it back on unpack.
class SavedTensor {
 public:
  SavedTensor(const Tensor& t, bool is_output);
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  void release() { data_ = Tensor(); released_ = true; }

 private:
  Tensor data_;
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool released_ = false;
};


// What a custom function's forward leaves for its backward.
class AutogradContext {
 public:
  AutogradContext();
  ~AutogradContext();
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;
  void save_for_backward(TensorList tensors);
  // The saved tensors, checked against in-place changes since they were saved.
  TensorList get_saved_variables() const;
  void mark_non_differentiable(const TensorList& outputs);
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  bool materialize_grads() const { return materialize_grads_; }
  std::vector<bool> needs_input_grad;  // one per input: defined and requires grad

 private:
  friend TensorList run_function(const std::string&, const TensorList&,
                                 const std::function<TensorList(AutogradContext&)>&,
                                 std::function<TensorList(AutogradContext&, const TensorList&)>);
  TensorList to_save_;
  std::vector<SavedTensor> saved_;
  std::vector<const TensorImpl*> non_differentiable_;
  std::weak_ptr<Node> owner_;
  bool materialize_grads_ = true;
};

// Runs `forward` with grad mode off, then records its outputs as produced from `inputs` by one
// node `name` whose backward maps output gradients to input gradients (one per input, undefined
// where none). The core of autograd::Function<T> and of Python's Function.apply.
TensorList run_function(const std::string& name, const TensorList& inputs,
                        const std::function<TensorList(AutogradContext&)>& forward,
                        std::function<TensorList(AutogradContext&, const TensorList&)> backward);

// CRTP base for C++ custom functions, as torch::autograd::Function:
//   struct MyExp : Function<MyExp> {
//     static TensorList forward(AutogradContext* ctx, const TensorList& in);
//     static TensorList backward(AutogradContext* ctx, const TensorList& grad_out); };
//   TensorList out = MyExp::apply({x});
template <typename T>
struct Function {
  static TensorList apply(const TensorList& inputs) {
    return run_function(
        std::string(T::name()), inputs, [&](AutogradContext& ctx) { return T::forward(&ctx, inputs); },
        [](AutogradContext& ctx, const TensorList& grads) { return T::backward(&ctx, grads); });
  }
};

}  // namespace ember::autograd

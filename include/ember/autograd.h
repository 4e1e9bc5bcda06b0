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
};

using TensorHook = std::function<Tensor(const Tensor& grad)>;  // returns a replacement or an undefined tensor

struct Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node() = default;
  // Gradients w.r.t. this node's inputs (the forward op's outputs) -> gradients w.r.t. next_edges.
  virtual TensorList apply(TensorList&& grads) = 0;
  virtual std::string name() const = 0;
  // Frees saved tensors after a backward pass that does not retain the graph.
  virtual void release_variables() {}

  std::vector<Edge> next_edges;
  std::vector<InputMeta> input_meta;
  std::vector<std::pair<uint32_t, TensorHook>> pre_hooks;  // (input_nr, hook): tensor.register_hook
  std::vector<std::pair<uint32_t, TensorHook>> retain_grad_hooks;  // run after pre_hooks
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
  bool retains_grad = false;
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

// Calls `hook` with the gradient of `t` each time one is computed (tensor.register_hook).
void register_hook(const Tensor& t, TensorHook hook);

// Runs backward from `roots` (seeded with `grad_roots`, ones for scalars where undefined), adding
// into leaves' .grad.
void backward(const TensorList& roots, const TensorList& grad_roots = {}, std::optional<bool> retain_graph = {},
              bool create_graph = false);
// Gradients of `outputs` w.r.t. `inputs`, returned instead of accumulated (torch.autograd.grad).
// An input the outputs do not depend on raises unless allow_unused (then its gradient is undefined).
TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs = {},
                std::optional<bool> retain_graph = {}, bool create_graph = false, bool allow_unused = false);

}  // namespace ember::autograd

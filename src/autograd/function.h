// Recording ops into the graph: a FunctionNode per differentiable op, holding the tensors its
// derivative formula needs (SavedTensor) and the formula itself, written with ember ops so
// that create_graph=True differentiates it again.
#pragma once
#include <initializer_list>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ember/autograd.h"

namespace ember::autograd {

// What a derivative formula sees: the incoming gradients, the unpacked saved tensors, and which
// inputs need a gradient (the others may get an undefined tensor).
struct BackwardContext {
  const TensorList& grads;
  const TensorList& saved;
  const Node& node;
  bool needs(size_t input) const { return node.next_edges[input].valid(); }
};
using BackwardFormula = std::function<TensorList(const BackwardContext&)>;

struct FunctionNode : Node {
  FunctionNode(const char* name, BackwardFormula formula) : name_(name), formula_(std::move(formula)) {}
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return name_; }
  void rename(const char* name) { name_ = name; }  // an in-place view op takes its view's node under its own name
  void release_variables() override;

  std::vector<SavedTensor> saved;

 private:
  const char* name_;
  BackwardFormula formula_;
  bool released_ = false;
};

// Whether an op on these inputs must be recorded: grad mode on and one of them requires grad.
inline bool needs_grad(std::initializer_list<const Tensor*> inputs) {
  if (!is_grad_enabled()) return false;
  for (const Tensor* t : inputs) {
    if (t->defined() && t->requires_grad()) return true;
  }
  return false;
}

// A result that views a temporary only it still holds (a reduction's reshaped accumulator, a squeezed product) is
// a new tensor, as torch's: an in-place op on it then records its own node, not a rebase of an unreachable base.
void drop_private_base(const Tensor& result);

template <typename R>
constexpr bool is_tensor_group = false;
template <typename... T>
constexpr bool is_tensor_group<std::tuple<T...>> = (std::is_same_v<T, Tensor> && ...);
template <typename A, typename B>
constexpr bool is_tensor_group<std::pair<A, B>> = std::is_same_v<A, Tensor> && std::is_same_v<B, Tensor>;

// Runs an op's body with grad mode off, so the ops it is built from record nothing (the op
// records itself as one node). Its tensor results drop a private base (drop_private_base).
template <typename F>
auto untracked(F&& body) {
  GradModeGuard off(false);
  using R = decltype(body());
  if constexpr (std::is_same_v<R, Tensor>) {
    Tensor r = body();
    drop_private_base(r);
    return r;
  } else if constexpr (is_tensor_group<R>) {
    R r = body();
    std::apply([](const auto&... t) { (drop_private_base(t), ...); }, r);
    return r;
  } else {
    return body();
  }
}

// Graph wiring shared by every recorder: an edge to where `input`'s gradient goes (none for an
// undefined input), and `output` as the node's next output (input_meta slot; grad_fn and
// output_nr unless it is not differentiable).
void add_edge(Node& node, const Tensor& input);
void add_output(const std::shared_ptr<Node>& node, const Tensor& output, bool differentiable = true);

// A recorded op's output is a new tensor, as torch's: not a view of the temporaries the op built it from (a
// reduction's reshaped accumulator ...), so an in-place op on it records its own node, not a view's rebase.
// record() and record_multi() apply it (view ops mark their outputs as views after recording).
void as_new_tensor(const Tensor& result);

// Makes `result` the output of a new node `name` with edges to `inputs`, saving `saved` (where
// `result` itself is among them it is saved as an output; a null slot saves nothing: see if_needed).
// Call only when needs_grad(inputs).
void record(const char* name, const Tensor& result, std::initializer_list<const Tensor*> inputs,
            std::initializer_list<const Tensor*> saved, BackwardFormula formula);
// torch saves a tensor only where a gradient that reads it is needed: `t` when `needed`, else nothing.
inline const Tensor* if_needed(bool needed, const Tensor& t) { return needed ? &t : nullptr; }

// The outputs of a function returning several views in the graph (unbind, split): see
// AutogradMeta::multi_view_version. `how`: "is being modified inplace" or the indirect case.
void mark_multi_output_views(const TensorList& views);
std::string multi_view_error(const Tensor& view, const char* how);

// Raises torch's error for an in-place write into a leaf that requires grad, into a view of one, or into an
// output of a function returning several views, while grad mode is on; checked before the op's own checks,
// as torch's autograd layer does.
inline void check_in_place(const Tensor& self) {
  if (!is_grad_enabled() || !self.requires_grad()) return;
  const Tensor base = self.impl()->view_base ? Tensor(self.impl()->view_base) : Tensor();
  EMBER_CHECK(!base.defined() || !base.is_leaf() || !base.requires_grad(), Error,
              "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  EMBER_CHECK(!self.is_leaf(), Error, "a leaf Variable that requires grad is being used in an in-place operation.");
  EMBER_CHECK(!self.impl()->autograd || !self.impl()->autograd->multi_view_version, Error,
              multi_view_error(self, "is being modified inplace"));
}

// An out= form under autograd (torch's rule): in place (out is `self`) is recorded through
// record_in_place; a separate out= tensor is refused, naming op `name`.
Tensor& record_out(Tensor& out, const Tensor& self, const char* name, const std::function<Tensor()>& compute);
// The out= form of an op without a derivative (heaviside, floor_divide): compute() (untracked) is written into out
// (resized as out= tensors are) and recorded as torch's NotImplemented node over `inputs`, through record_in_place so
// a view `out` rebases its base; a leaf `out` that requires grad is refused with torch's out= error.
Tensor& record_out_not_implemented(Tensor& out, const char* name, std::initializer_list<const Tensor*> inputs,
                                   const std::function<Tensor()>& compute);

// Sets t's grad_fn and output_nr (noting the storage version they belong to).
void set_history(const Tensor& t, std::shared_ptr<Node> grad_fn, uint32_t output_nr);

// torch's rule for views (VariableHooks::grad_fn): a view of a graph tensor whose storage was written in place
// since its grad_fn was set (through its base or another view) takes its history afresh from the base, as
// AsStridedBackward0. Called where grad_fn is read (Tensor::grad_fn, gradient_edge).
void refresh_view_history(const Tensor& t);

// Whether `self` is a view whose base is in the graph (an in-place write must rewrite its history).
bool writes_into_graph_view(const Tensor& self);

// Runs an in-place op on `self` as out-of-place `compute()` plus a copy into self, which then takes
// the result's history; the formula's first saved slot that is `self` is saved as a copy (torch's
// original_self), as self is about to be overwritten. Raises for a leaf that requires grad, as torch does.
// `write`, when given, stores the result into self instead of the copy (an op that writes only some elements).
Tensor& record_in_place(Tensor& self, const std::function<Tensor()>& compute,
                        const std::function<void(const Tensor&)>& write = {});

// record() for ops with several outputs: output i is the node's input i.
void record_multi(const char* name, const TensorList& results, std::initializer_list<const Tensor*> inputs,
                  std::initializer_list<const Tensor*> saved, BackwardFormula formula);

// Sums `grad` down to `sizes` (the inverse of broadcasting).
Tensor sum_to(const Tensor& grad, IntArrayRef sizes);

}  // namespace ember::autograd

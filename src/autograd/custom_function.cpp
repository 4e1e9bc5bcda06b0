// Custom differentiable functions: a node that calls a user-provided backward.
#include "ember/autograd.h"

#include <algorithm>

#include "ember/creation.h"
#include "function.h"

namespace ember::autograd {

namespace {

struct CustomNode : Node {
  CustomNode(std::string name, std::shared_ptr<AutogradContext> ctx,
             std::function<TensorList(AutogradContext&, const TensorList&)> backward)
      : name_(std::move(name)), ctx_(std::move(ctx)), backward_(std::move(backward)) {}

  TensorList apply(TensorList&& grads) override {
    EMBER_CHECK(backward_, Error, "Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Specify retain_graph=True if you need to backward "
                "through the graph a second time.");
    TensorList result = backward_(*ctx_, grads);
    EMBER_CHECK(result.size() == next_edges.size(), Error, "function ", name_, " returned an incorrect number of "
                "gradients (expected ", next_edges.size(), ", got ", result.size(), ")");
    return result;
  }
  std::string name() const override { return name_; }
  void release_variables() override { released_ = true; }

  std::string name_;
  std::shared_ptr<AutogradContext> ctx_;
  std::function<TensorList(AutogradContext&, const TensorList&)> backward_;
  bool released_ = false;
};

}  // namespace

AutogradContext::AutogradContext() = default;
AutogradContext::~AutogradContext() = default;

void AutogradContext::save_for_backward(TensorList tensors) { to_save_ = std::move(tensors); }

TensorList AutogradContext::get_saved_variables() const {
  auto owner = owner_.lock();
  if (!owner) return to_save_;  // still inside forward (or never recorded)
  EMBER_CHECK(!static_cast<const CustomNode&>(*owner).released_, Error, "Trying to backward through the graph a "
              "second time (or directly access saved tensors after they have already been freed). Saved intermediate "
              "values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True "
              "if you need to backward through the graph a second time or if you need to access saved tensors after "
              "calling backward.");
  TensorList out;
  for (const SavedTensor& s : saved_) out.push_back(s.unpack(owner));
  return out;
}

void AutogradContext::mark_non_differentiable(const TensorList& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.push_back(t.impl());
}

TensorList run_function(const std::string& name, const TensorList& inputs,
                        const std::function<TensorList(AutogradContext&)>& forward,
                        std::function<TensorList(AutogradContext&, const TensorList&)> backward) {
  auto ctx = std::make_shared<AutogradContext>();
  bool any = false;
  for (const Tensor& t : inputs) {
    ctx->needs_input_grad.push_back(t.defined() && t.requires_grad());
    any |= ctx->needs_input_grad.back();
  }
  TensorList outputs = untracked([&] { return forward(*ctx); });
  if (!any || !is_grad_enabled()) return outputs;

  auto node = std::make_shared<CustomNode>(name, ctx, std::move(backward));
  for (const Tensor& t : inputs) add_edge(*node, t);
  for (Tensor& out : outputs) {  // output i is the node's input i, differentiable or not
    for (const Tensor& in : inputs) {
      if (out.defined() && out.is_same(in)) out = out.detach();  // an input returned as is becomes a new output
    }
    const auto& excluded = ctx->non_differentiable_;
    bool differentiable = out.defined() && out.is_floating_point() &&
                          std::find(excluded.begin(), excluded.end(), out.impl()) == excluded.end();
    add_output(node, out, differentiable);
  }
  for (const Tensor& t : ctx->to_save_) {
    bool is_output = std::any_of(outputs.begin(), outputs.end(), [&](const Tensor& o) { return o.is_same(t); });
    ctx->saved_.emplace_back(t, is_output);
  }
  ctx->to_save_.clear();
  ctx->owner_ = node;
  node->materialize_grads = ctx->materialize_grads();
  return outputs;
}

}  // namespace ember::autograd

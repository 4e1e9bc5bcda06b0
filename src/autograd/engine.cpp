// The backward engine: runs the graph's nodes in dependency order (later-created first among the
// ready ones), checking, reducing and casting each gradient to the shape and dtype its receiver
// expects, and adding the gradients that meet at one input.
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "ember/sparse.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "function.h"

namespace ember::autograd {

namespace {

// Makes `grad` fit input `meta`: sums broadcast dims away, casts the dtype, moves it to the input's device
// (a copy between devices passes its gradient through); raises on a mismatch.
Tensor fit(Tensor grad, const InputMeta& meta, const Node& producer) {
  if (!std::equal(grad.sizes().begin(), grad.sizes().end(), meta.sizes.begin(), meta.sizes.end())) {
    DimVector common = broadcast_shapes(grad.sizes(), meta.sizes);
    EMBER_CHECK(std::equal(common.begin(), common.end(), grad.sizes().begin(), grad.sizes().end()), Error,
                "Function ", producer.name(), " returned an invalid gradient - got ", int_list(grad.sizes()),
                " but expected shape compatible with ", int_list(meta.sizes));
    grad = sum_to(grad, meta.sizes);
  }
  if (grad.device().type != meta.device.type) grad = grad.to(meta.device);
  return grad.dtype() == meta.dtype ? grad : grad.to(meta.dtype);
}

// a + b for two gradients of one tensor; a sparse one goes second (torch has add(dense, sparse) only).
Tensor add_gradients(const Tensor& a, const Tensor& b) {
  return a.has_sparse_layout() && !b.has_sparse_layout() ? add(b, a) : add(a, b);
}

struct ByLatest {
  bool operator()(const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) const {
    return a->sequence_nr < b->sequence_nr;
  }
};

// One backward pass. With `captures`, the gradients arriving at those edges are returned and only
// the nodes that lead to them run; otherwise every node runs (AccumulateGrad fills leaves' .grad).
TensorList run_backward(const std::vector<Edge>& roots, TensorList root_grads, bool keep_graph, bool create_graph,
                        const std::vector<Edge>* captures) {
  // Post-order over the graph, so every node comes after the nodes it leads to.
  std::vector<Node*> order;
  std::unordered_set<Node*> seen;
  std::vector<std::pair<Node*, size_t>> stack;
  for (const Edge& r : roots) {
    if (r.fn && seen.insert(r.fn.get()).second) stack.push_back({r.fn.get(), 0});
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->next_edges.size()) {
        Node* child = node->next_edges[next++].fn.get();
        if (child && seen.insert(child).second) stack.push_back({child, 0});
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  }
  std::unordered_set<Node*> targets, runs;
  if (captures) {
    for (const Edge& c : *captures) targets.insert(c.fn.get());
    for (Node* n : order) {  // children first: a node runs if it leads to a target
      for (const Edge& e : n->next_edges) {
        if (e.fn && (targets.count(e.fn.get()) || runs.count(e.fn.get()))) { runs.insert(n); break; }
      }
    }
  }
  auto should_run = [&](Node* n) { return !captures || runs.count(n); };
  std::unordered_map<Node*, int> dependencies;
  for (Node* n : order) {
    if (!should_run(n)) continue;
    for (const Edge& e : n->next_edges) if (e.fn) ++dependencies[e.fn.get()];
  }

  std::unordered_map<Node*, TensorList> buffers;
  auto deliver = [&](const Edge& e, Tensor grad, const Node& producer) {
    TensorList& buf = buffers[e.fn.get()];
    if (buf.empty()) buf.resize(e.fn->input_meta.size());
    grad = fit(std::move(grad), e.fn->input_meta[e.input_nr], producer);
    Tensor& slot = buf[e.input_nr];
    slot = slot.defined() ? add_gradients(slot, grad) : std::move(grad);
  };
  GradModeGuard grad_mode(create_graph);
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, ByLatest> ready;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Edge& r = roots[i];
    deliver(r, root_grads[i], *r.fn);
  }
  std::unordered_set<Node*> queued;
  for (const Edge& r : roots) {
    if (dependencies[r.fn.get()] == 0 && queued.insert(r.fn.get()).second) ready.push(r.fn);
  }

  TensorList captured(captures ? captures->size() : 0);
  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    TensorList inputs = std::move(buffers[node.get()]);
    buffers.erase(node.get());
    inputs.resize(node->input_meta.size());
    for (auto* hooks : {&node->pre_hooks, &node->retain_grad_hooks}) {  // retain_grad sees the hooked gradient
      for (const Node::Hook& hook : *hooks) {
        if (!inputs[hook.input_nr].defined()) continue;
        Tensor replaced = hook.fn(inputs[hook.input_nr]);
        if (replaced.defined()) inputs[hook.input_nr] = replaced;
      }
    }
    if (captures) {
      for (size_t c = 0; c < captures->size(); ++c) {
        if ((*captures)[c].fn == node) captured[c] = inputs[(*captures)[c].input_nr];
      }
    }
    if (!should_run(node.get())) continue;
    for (size_t i = 0; i < inputs.size() && node->materialize_grads; ++i) {  // outputs that got no gradient: zeros
      const InputMeta& meta = node->input_meta[i];
      if (!inputs[i].defined()) inputs[i] = zeros(meta.sizes, TensorOptions(meta.dtype).with_device(meta.device));
    }
    TensorList outputs = node->apply(std::move(inputs));
    if (!keep_graph) node->release_variables();
    for (size_t i = 0; i < node->next_edges.size(); ++i) {
      const Edge& e = node->next_edges[i];
      if (!e.fn) continue;
      if (i < outputs.size() && outputs[i].defined()) deliver(e, std::move(outputs[i]), *node);
      if (--dependencies[e.fn.get()] == 0) ready.push(e.fn);
    }
  }
  return captured;
}

// Root edges and their seed gradients (ones for scalars where none is given).
std::vector<Edge> root_edges(const TensorList& outputs, TensorList& grads, const char* what) {
  EMBER_CHECK(grads.empty() || grads.size() == outputs.size(), Error, "grad can be implicitly created only for "
              "scalar outputs; got ", grads.size(), " gradients for ", outputs.size(), " ", what);
  grads.resize(outputs.size());
  std::vector<Edge> edges;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    EMBER_CHECK(out.requires_grad(), Error, "element ", i, " of tensors does not require grad and does not have a grad_fn");
    if (!grads[i].defined()) {
      EMBER_CHECK(out.numel() == 1, Error, "grad can be implicitly created only for scalar outputs");
      grads[i] = ones_like(out);
    } else {
      EMBER_CHECK(std::equal(grads[i].sizes().begin(), grads[i].sizes().end(), out.sizes().begin(), out.sizes().end()),
                  Error, "Mismatch in shape: grad_output[", i, "] has a shape of torch.Size(", int_list(grads[i].sizes()),
                  ") and output[", i, "] has a shape of torch.Size(", int_list(out.sizes()), ").");
    }
    edges.push_back(gradient_edge(out));
  }
  return edges;
}

}  // namespace

TensorList AccumulateGrad::apply(TensorList&& grads) {
  std::shared_ptr<TensorImpl> impl = leaf.lock();
  if (!impl) return {};
  Tensor variable(impl);
  AutogradMeta& meta = variable.autograd_meta();
  Tensor& g = grads[0];
  if (g.has_sparse_layout() || variable.has_sparse_layout() ||
      (meta.grad.defined() && meta.grad.has_sparse_layout())) [[unlikely]] {
    // Sparse gradients are kept as they come (a sparse leaf may get a dense one, as torch's mm gives).
    meta.grad = !meta.grad.defined() ? (is_grad_enabled() ? g : g.detach()) : add_gradients(meta.grad, g);
    return {};
  }
  if (!meta.grad.defined()) {
    // Keep the incoming tensor when nothing else refers to it and its layout is the leaf's;
    // otherwise copy it (a shared or expanded gradient must not become .grad).
    bool stealable = !is_grad_enabled() && g.shared_impl().use_count() == 1 && g.storage().use_count() == 1 &&
                     std::equal(g.strides().begin(), g.strides().end(), variable.strides().begin(), variable.strides().end());
    if (is_grad_enabled()) meta.grad = g;
    else if (stealable) meta.grad = g;
    else meta.grad = empty_like(variable).copy_(g);
  } else if (!is_grad_enabled()) {
    add_out(meta.grad, meta.grad, g);
  } else {
    meta.grad = add(meta.grad, g);
  }
  return {};
}

void backward(const TensorList& roots, const TensorList& grad_roots, std::optional<bool> retain_graph, bool create_graph,
              const TensorList& inputs) {
  TensorList grads = grad_roots;
  if (grads.size() == 1 && roots.size() == 1 && !grads[0].defined()) grads.clear();
  std::vector<Edge> edges = root_edges(roots, grads, "outputs");
  bool keep = retain_graph.value_or(create_graph);
  if (inputs.empty()) {
    run_backward(edges, std::move(grads), keep, create_graph, nullptr);
    return;
  }
  std::vector<Edge> captures;
  for (const Tensor& t : inputs) {
    EMBER_CHECK(t.requires_grad(), Error, "One of the differentiated Tensors does not require grad");
    captures.push_back(gradient_edge(t));
  }
  TensorList captured = run_backward(edges, std::move(grads), keep, create_graph, &captures);
  GradModeGuard grad_mode(create_graph);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!captured[i].defined()) continue;
    AutogradMeta& meta = inputs[i].autograd_meta();
    meta.grad = meta.grad.defined() ? add(meta.grad, captured[i]) : (create_graph ? captured[i] : captured[i].detach().clone());
  }
}

TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs,
                std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  TensorList grads = grad_outputs;
  std::vector<Edge> edges = root_edges(outputs, grads, "outputs");
  std::vector<Edge> captures;
  for (const Tensor& t : inputs) {
    EMBER_CHECK(t.requires_grad(), Error, "One of the differentiated Tensors does not require grad");
    captures.push_back(gradient_edge(t));
  }
  TensorList result = run_backward(edges, std::move(grads), retain_graph.value_or(create_graph), create_graph, &captures);
  for (size_t i = 0; i < result.size(); ++i) {
    EMBER_CHECK(result[i].defined() || allow_unused, Error, "The differentiated Tensor at index ", i, " appears to not "
                "have been used in the graph. Set allow_unused=True if this is the desired behavior.");
  }
  return result;
}

}  // namespace ember::autograd

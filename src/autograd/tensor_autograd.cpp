// Tensor's autograd surface: requires_grad, grad, grad_fn, detach, retain_grad, backward; grad mode.
#include "ember/sparse.h"
#include "ember/autograd.h"

#include "function.h"

#include "ember/ops.h"
#include "function.h"

#include <atomic>

namespace ember {

namespace autograd {

namespace {
thread_local bool t_grad_enabled = true;
thread_local bool t_inference_mode = false;
}  // namespace

bool is_grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool enabled) { t_grad_enabled = enabled; }
bool is_inference_mode_enabled() { return t_inference_mode; }
void set_inference_mode_enabled(bool enabled) { t_inference_mode = enabled; }

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* meta = t.impl()->autograd.get();
  if (meta && meta->grad_fn) return {t.grad_fn(), meta->output_nr};  // grad_fn(): a stale multi-output view raises
  if (!t.impl()->requires_grad) return {};
  std::shared_ptr<Node> acc = meta ? meta->grad_accumulator : nullptr;
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(std::weak_ptr<TensorImpl>(t.shared_impl()));
    acc->input_meta.push_back({DimVector(t.sizes()), t.dtype(), t.device()});
    t.autograd_meta().grad_accumulator = acc;
  }
  return {acc, 0};
}

namespace {
std::atomic<uint64_t> g_next_hook_id = 0;
}  // namespace

HookHandle register_hook(const Tensor& t, TensorHook hook) {
  Edge e = gradient_edge(t);
  EMBER_CHECK(e.valid(), Error, "cannot register a hook on a tensor that doesn't require gradient");
  uint64_t id = g_next_hook_id++;
  e.fn->pre_hooks.push_back({e.input_nr, std::move(hook), id});
  return HookHandle(e.fn, id);
}

void HookHandle::remove() {
  if (auto node = node_.lock()) {
    std::erase_if(node->pre_hooks, [this](const Node::Hook& h) { return h.id == id_; });
  }
}

}  // namespace autograd

using autograd::AutogradMeta;

AutogradMeta& Tensor::autograd_meta() const {
  if (!impl_->autograd) impl_->autograd = std::make_unique<AutogradMeta>();
  return *impl_->autograd;
}

bool Tensor::requires_grad() const {
  return impl_->requires_grad || (impl_->autograd && impl_->autograd->grad_fn);
}

Tensor& Tensor::requires_grad_(bool requires_grad) {
  EMBER_CHECK(is_leaf(), Error, "you can only change requires_grad flags of leaf variables. If you want to use a "
              "computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  EMBER_CHECK(!requires_grad || is_floating_point(), Error,
              "only Tensors of floating point dtype can require gradients");
  impl_->requires_grad = requires_grad;
  return *this;
}

bool Tensor::is_leaf() const { return !impl_->autograd || !impl_->autograd->grad_fn; }

Tensor Tensor::_base() const { return impl_->view_base ? Tensor(impl_->view_base) : Tensor(); }

Tensor Tensor::grad() const { return impl_->autograd ? impl_->autograd->grad : Tensor(); }

void Tensor::set_grad(const Tensor& grad) const {
  if (grad.defined()) {
    EMBER_CHECK(grad.dtype() == dtype(), Error, "assigned grad has data of a different type");
    EMBER_CHECK(grad.device() == device(), Error, "assigned grad has data located on a different device");
    EMBER_CHECK(std::equal(grad.sizes().begin(), grad.sizes().end(), sizes().begin(), sizes().end()), Error,
                "assigned grad has data of a different size");
  }
  if (grad.defined() || impl_->autograd) autograd_meta().grad = grad;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  autograd::refresh_view_history(*this);
  if (!impl_->autograd) return nullptr;
  const auto& made_at = impl_->autograd->multi_view_version;
  EMBER_CHECK(!made_at || *made_at == version(), Error,
              autograd::multi_view_error(*this, "its base or another view of its base has been modified inplace"));
  return impl_->autograd->grad_fn;
}

uint32_t Tensor::output_nr() const {
  autograd::refresh_view_history(*this);
  return impl_->autograd ? impl_->autograd->output_nr : 0;
}

Tensor Tensor::detach() const {
  if (has_sparse_layout()) return sparse_detach(*this);
  return make_view_of(*this, DimVector(sizes()), DimVector(strides()), storage_offset());
}

Tensor& Tensor::detach_() {
  if (impl_->autograd) {
    impl_->autograd->grad_fn.reset();
    impl_->autograd->output_nr = 0;
  }
  impl_->requires_grad = false;
  return *this;
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), Error, "can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf() || impl_->autograd->retains_grad) return;  // leaves keep their .grad anyway
  impl_->autograd->retains_grad = true;
  std::weak_ptr<TensorImpl> weak = impl_;
  auto keep = [weak](const Tensor& grad) {
    if (auto impl = weak.lock()) {
      Tensor& current = Tensor(impl).autograd_meta().grad;
      current = current.defined() ? ember::add(current, grad) : grad.clone();
    }
    return Tensor();
  };
  impl_->autograd->grad_fn->retain_grad_hooks.push_back({output_nr(), keep, 0});
}

bool Tensor::retains_grad() const { return !is_leaf() && impl_->autograd->retains_grad; }

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

}  // namespace ember

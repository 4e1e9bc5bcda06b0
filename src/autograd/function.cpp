#include "function.h"

#include <algorithm>
#include <atomic>

#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/print.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "formulas_views.h"

namespace ember::autograd {

namespace {

std::atomic<uint64_t> g_next_sequence_nr = 0;
thread_local const TensorImpl* t_in_place_target = nullptr;  // see record_in_place
// The slots (node, index) where nodes recorded during an in-place op's compute saved their own result.
thread_local std::vector<std::pair<FunctionNode*, size_t>> t_saved_results;

// record_in_place's state for one op (its target and result slots), restored when the op ends.
struct InPlaceScope {
  const TensorImpl* previous;
  std::vector<std::pair<FunctionNode*, size_t>> outer;
  explicit InPlaceScope(const TensorImpl* target)
      : previous(std::exchange(t_in_place_target, target)), outer(std::exchange(t_saved_results, {})) {}
  ~InPlaceScope() {
    t_in_place_target = previous;
    t_saved_results = std::move(outer);
  }
};

std::string describe(const Tensor& t) {  // torch's "[torch.FloatTensor [3, 4]]"
  std::string_view name = legacy_name(t.dtype());
  return str("[torch.", name, "Tensor ", int_list(t.sizes()), "]");
}

}  // namespace

Node::Node() : sequence_nr(g_next_sequence_nr++) {}

// As torch's deleteNode: the next nodes only this one holds are moved onto a stack and released
// there after their saved tensors are freed and their own next edges taken, so each destructor
// frees one node, not a chain.
Node::~Node() {
  std::vector<std::shared_ptr<Node>> stack;
  auto take_sole_edges = [&](Node& n) {
    n.release_variables();  // saved inputs hold the next nodes too (a no-op for this node: already freed)
    for (Edge& e : n.next_edges) {
      std::shared_ptr<Node> fn = std::move(e.fn);  // one at a time: two edges may hold the same node
      if (fn && fn.use_count() == 1) stack.push_back(std::move(fn));
    }
  };
  take_sole_edges(*this);
  while (!stack.empty()) {
    std::shared_ptr<Node> n = std::move(stack.back());
    stack.pop_back();
    take_sole_edges(*n);
  }
}

std::string Node::short_name() const {
  std::string n = name();
  constexpr std::string_view prefix = "torch::autograd::";
  return n.rfind(prefix, 0) == 0 ? n.substr(prefix.size()) : n;
}

SavedTensor::SavedTensor(const Tensor& t, bool is_output)
    : data_(is_output ? t.detach() : t),
      version_(t.defined() ? t.version() : 0),
      output_nr_(t.defined() ? t.output_nr() : 0),
      is_output_(is_output) {}

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& owner) const {
  EMBER_CHECK(!released_, Error, "Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Saved intermediate values of the graph are freed when "
              "you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through "
              "the graph a second time or if you need to access saved tensors after calling backward.");
  if (!data_.defined()) return data_;  // an optional argument that was not given
  if (data_.version() != version_) {
    std::string which = is_output_ ? str(", which is output ", output_nr_, " of ", owner->name(), ",")
                        : data_.grad_fn() ? str(", which is output ", data_.output_nr(), " of ", data_.grad_fn()->name(), ",")
                                          : std::string();
    throw Error(str("one of the variables needed for gradient computation has been modified by an inplace operation: ",
                    describe(data_), which, " is at version ", data_.version(), "; expected version ", version_,
                    " instead. Hint: an in-place operation changed this tensor after it was saved for backward; "
                    "use an out-of-place version of that operation, or clone() the tensor before it."));
  }
  if (!is_output_) return data_;
  Tensor t = data_.detach();  // the output again, with its history (for create_graph)
  set_history(t, owner, output_nr_);
  return t;
}

TensorList FunctionNode::apply(TensorList&& grads) {
  TensorList unpacked;
  unpacked.reserve(saved.size());
  auto self = shared_from_this();
  for (const SavedTensor& s : saved) unpacked.push_back(s.unpack(self));
  return formula_(BackwardContext{grads, unpacked, *this});
}

void FunctionNode::release_variables() {
  for (SavedTensor& s : saved) s.release();
}

void add_edge(Node& node, const Tensor& input) {
  node.next_edges.push_back(input.defined() ? gradient_edge(input) : Edge{});
}

void add_output(const std::shared_ptr<Node>& node, const Tensor& output, bool differentiable) {
  node->input_meta.push_back(output.defined() ? InputMeta{DimVector(output.sizes()), output.dtype(), output.device()}
                                              : InputMeta{DimVector(), kFloat32});
  if (!output.defined() || !differentiable) return;
  set_history(output, node, uint32_t(node->input_meta.size() - 1));
}

void set_history(const Tensor& t, std::shared_ptr<Node> grad_fn, uint32_t output_nr) {
  AutogradMeta& meta = t.autograd_meta();
  meta.grad_fn = std::move(grad_fn);
  meta.output_nr = output_nr;
  meta.attr_version = t.version();
}

void as_new_tensor(const Tensor& result) { result.impl()->view_base.reset(); }

void drop_private_base(const Tensor& result) {
  if (result.defined() && result.impl()->view_base.use_count() == 1) as_new_tensor(result);
}

void record(const char* name, const Tensor& result, std::initializer_list<const Tensor*> inputs,
            std::initializer_list<const Tensor*> saved, BackwardFormula formula) {
  // torch's set_history: integer and bool results are never differentiable; an in-place op's result is its target,
  // whose history torch rebases unchecked (an int tensor masked_fill_'d with a float that requires grad)
  EMBER_CHECK(is_floating_point(result.dtype()) || t_in_place_target, Error, "Autograd not support dtype: ",
              legacy_name(result.dtype()));
  auto node = std::make_shared<FunctionNode>(name, std::move(formula));
  for (const Tensor* t : inputs) add_edge(*node, *t);
  add_output(node, result);
  if (std::none_of(inputs.begin(), inputs.end(), [&](const Tensor* t) { return t->is_same(result); })) {
    as_new_tensor(result);
  }
  // The in-place target's first slot (self) is saved as its original value, as torch's original_self; a later
  // slot naming it too (other, in a.mul_(a)) is saved as is, so backward fails as torch's does.
  node->saved.reserve(saved.size());
  bool original_self_saved = false;
  for (const Tensor* t : saved) {
    if (!t) {
      node->saved.emplace_back(Tensor(), false);  // not needed: no input whose gradient reads it requires grad
    } else if (t->defined() && t->impl() == t_in_place_target && !original_self_saved) {
      node->saved.emplace_back(t->clone(), false);  // with self's history: a double backward reaches it
      original_self_saved = true;
    } else {
      if (t_in_place_target && t->is_same(result)) t_saved_results.emplace_back(node.get(), node->saved.size());
      node->saved.emplace_back(*t, t->is_same(result));
    }
  }
}

namespace {

// Geometry of a view relative to its base, and the base's own.
struct ViewGeometry {
  DimVector sizes, strides, base_sizes, base_strides;
  int64_t offset;
  // `grad` laid out like the base, and the view's region of it.
  std::pair<Tensor, Tensor> apply(const Tensor& grad) const {
    Tensor like_base = empty_strided(base_sizes, base_strides, grad.options()).copy_(grad);
    return {like_base, like_base.as_strided(sizes, strides, like_base.storage_offset() + offset)};
  }
};

// self's history: the same view taken afresh from `base` (AsStridedBackward0, as torch).
void history_from_base(const Tensor& self, const Tensor& base) {
  Tensor fresh = base.as_strided(self.sizes(), self.strides(), self.storage_offset());
  set_history(self, fresh.grad_fn(), fresh.output_nr());
}

// `self`, a view of `base`, was overwritten with `result`: base's history becomes CopySlices
// (gradient of the written region to result, the rest to base's old history) and self's becomes
// a view of the new base.
void rebase_view_history(const Tensor& self, const Tensor& base, const Tensor& result) {
  EMBER_CHECK(!base.is_leaf() || !base.requires_grad(), Error,
              "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  EMBER_CHECK(view_grad::distinct_elements(base.sizes(), base.strides()), NotImplementedError,
              "an in-place write into a view of a tensor whose elements overlap is not supported by Ember yet");
  ViewGeometry geometry{DimVector(self.sizes()), DimVector(self.strides()), DimVector(base.sizes()),
                        DimVector(base.strides()), self.storage_offset() - base.storage_offset()};
  record("torch::autograd::CopySlices", base, {&base, &result}, {}, [geometry](const BackwardContext& c) {
    auto [to_base, region] = geometry.apply(c.grads[0]);
    check_no_internal_overlap(region);  // torch writes the region's gradient back into it: an expanded view raises
    Tensor to_result = region.clone();
    region.zero_();  // recorded under create_graph, so a double backward sees the written region cut off
    return TensorList{to_base, to_result};
  });
  history_from_base(self, base);
}

}  // namespace

void refresh_view_history(const Tensor& t) {
  const AutogradMeta* meta = t.impl()->autograd.get();
  if (!meta || !meta->grad_fn || !t.impl()->view_base || meta->attr_version == t.version()) return;
  if (meta->multi_view_version) return;  // an output of unbind/split has no history to refresh: grad_fn raises
  Tensor base(t.impl()->view_base);
  // as_strided's gradient needs a base whose elements are distinct
  if (!base.requires_grad() || !view_grad::distinct_elements(base.sizes(), base.strides())) return;
  GradModeGuard on(true);
  history_from_base(t, base);
}

void record_multi(const char* name, const TensorList& results, std::initializer_list<const Tensor*> inputs,
                  std::initializer_list<const Tensor*> saved, BackwardFormula formula) {
  auto node = std::make_shared<FunctionNode>(name, std::move(formula));
  for (const Tensor* t : inputs) add_edge(*node, *t);
  for (const Tensor& r : results) {
    add_output(node, r);
    as_new_tensor(r);
  }
  for (const Tensor* t : saved) {
    bool is_output = std::any_of(results.begin(), results.end(), [&](const Tensor& r) { return r.is_same(*t); });
    node->saved.emplace_back(*t, is_output);
  }
}

void mark_multi_output_views(const TensorList& views) {
  for (const Tensor& v : views) {
    if (v.grad_fn()) v.autograd_meta().multi_view_version = v.version();
  }
}

std::string multi_view_error(const Tensor& view, const char* how) {
  std::string name = view.impl()->autograd->grad_fn->name();
  if (auto at = name.rfind("Backward"); at != std::string::npos) name.resize(at);
  return str("Output ", view.output_nr(), " of ", name, " is a view and ", how, ". This view is the output of a "
             "function that returns multiple views. Such functions do not allow the output views to be modified "
             "inplace. You should replace the inplace operation by an out-of-place one.");
}

Tensor& record_out(Tensor& out, const Tensor& self, const char* name, const std::function<Tensor()>& compute) {
  EMBER_CHECK(out.is_same(self), Error, name, "(): functions with out=... arguments don't support automatic "
              "differentiation, but one of the arguments requires grad.");
  return record_in_place(out, compute);
}

Tensor& record_out_not_implemented(Tensor& out, const char* name, std::initializer_list<const Tensor*> inputs,
                                   const std::function<Tensor()>& compute) {
  EMBER_CHECK(!(out.is_leaf() && out.requires_grad()), Error, "aten::", name, "(): functions with out=... arguments "
              "don't support automatic differentiation, but one of the arguments requires grad.");
  auto recorded = [&] {
    Tensor r = untracked(compute);
    check_result_fits_output(r.dtype(), out.dtype());
    if (r.is_floating_point()) {
      record("torch::autograd::NotImplemented", r, inputs, {}, [name](const BackwardContext&) -> TensorList {
        throw Error(str("derivative for aten::", name, " is not implemented"));
      });
    }
    return r;
  };
  return record_in_place(out, recorded, [&](const Tensor& r) {
    resize_output_like(out, r);
    out.copy_(r);
  });
}

bool writes_into_graph_view(const Tensor& self) {
  return is_grad_enabled() && self.impl()->view_base && Tensor(self.impl()->view_base).requires_grad();
}

Tensor& record_in_place(Tensor& self, const std::function<Tensor()>& compute,
                        const std::function<void(const Tensor&)>& write) {
  check_in_place(self);
  InPlaceScope scope(self.impl());
  Tensor result = compute();
  {
    GradModeGuard no_grad(false);
    if (write) {
      write(result);
    } else {
      self.copy_(result);
    }
  }
  // A view of an integer or bool base is no differentiable view (torch): it takes the result's history itself.
  bool float_view = self.impl()->view_base && Tensor(self.impl()->view_base).is_floating_point();
  if (writes_into_graph_view(self) || (float_view && result.requires_grad())) {
    rebase_view_history(self, Tensor(self.impl()->view_base), result);
  } else {
    set_history(self, result.grad_fn(), result.output_nr());
  }
  // The op's node saves self, not the temporary result (torch's in-place ops save self as their output), so a
  // later in-place change of self fails backward.
  for (auto [node, slot] : t_saved_results) {
    if (node == result.grad_fn().get()) node->saved[slot] = SavedTensor(self, true);
  }
  return self;
}

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (std::equal(grad.sizes().begin(), grad.sizes().end(), sizes.begin(), sizes.end())) return grad;
  int64_t lead = grad.dim() - int64_t(sizes.size());
  DimVector dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (sizes[size_t(d - lead)] == 1 && grad.sizes()[size_t(d)] != 1)) dims.push_back(d);
  }
  Tensor r = sum(grad, dims, /*keepdim=*/true);
  return lead > 0 || r.dim() != int64_t(sizes.size()) ? r.view(sizes) : r;
}

}  // namespace ember::autograd
